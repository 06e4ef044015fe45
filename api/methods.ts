// 405 for a method a path does not have (RFC 9110 §15.5.6): `TRACE /healthz` or `DELETE /v1/tasks`
// is not a missing resource but a wrong method, answered with the methods the path does have in
// `Allow`. Read from the app's own routing table, so it cannot drift from the routes.
/** A route path (`/v1/tasks/:task_id`, `/docs/*`) as a whole-path pattern. */
function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * The methods routed for `path`, sorted, HEAD beside GET (Hono answers HEAD with GET's handler);
 * empty when no route has this path. Middleware (`use`, method ALL) is not a route.
 */
export function allowedMethods(table: ReadonlyArray<{ method: string; path: string }>, path: string): string[] {
  const routes = table.filter((r) => r.method !== 'ALL' && pathPattern(r.path).test(path));
  // The document's view: a path of its own (`/v1/tasks/preview`) is a resource apart from the
  // pattern it also matches (`/v1/tasks/{task_id}`), so only the most specific routes count.
  const wild = (p: string) => p.split('/').filter((s) => s.startsWith(':') || s === '*').length;
  const fewest = Math.min(...routes.map((r) => wild(r.path)));
  const methods = new Set<string>();
  for (const route of routes.filter((r) => wild(r.path) === fewest)) {
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
  }
  return [...methods].sort();
}
