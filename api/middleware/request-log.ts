// One log line and one latency observation per API request: method, route pattern (never the raw
// path, whose query may hold a link signature or an access token), status, latency, request_id and
// the project of the key that called (null for the admin token or no key).
import { createMiddleware } from 'hono/factory';
import { matchedRoutes } from 'hono/route';
import type { Context } from 'hono';
import { DomainError } from '../../domain/errors.js';
import { logger } from '../../platform/logger.js';
import { metrics } from '../../platform/metrics.js';
import type { AppEnv } from '../types.js';

/** The pattern of the handler that answered (`/v1/tasks/:task_id`), or `unmatched`. */
export function routeOf(c: Context): string {
  const routes = matchedRoutes(c);
  const handler = routes[c.req.routeIndex] ?? routes[routes.length - 1];
  return handler && handler.path !== '/*' && handler.path !== '*' ? handler.path : 'unmatched';
}

export const requestLog = createMiddleware<AppEnv>(async (c, next) => {
  const started = performance.now();
  await next();
  const seconds = (performance.now() - started) / 1000;
  const route = c.res.status === 404 && c.error instanceof DomainError && c.error.message.startsWith('no such endpoint') ? 'unmatched' : routeOf(c);
  const status = c.res.status;
  metrics.httpRequests.observe({ method: c.req.method, route, status: String(status) }, seconds);
  const principal = c.get('principal');
  const line = {
    method: c.req.method,
    route,
    status,
    latency_ms: Math.round(seconds * 10_000) / 10,
    request_id: c.get('requestId'),
    project_id: principal?.kind === 'project' ? principal.project.id : null,
    ...(principal?.kind === 'admin' ? { admin: true } : {}),
    ...(c.error && !(c.error instanceof DomainError) ? { err: c.error } : {}),
    ...(c.error instanceof DomainError ? { error_code: c.error.code } : {}),
  };
  const log = logger('api');
  if (status >= 500) log.error(line, 'request');
  else log.info(line, 'request');
});
