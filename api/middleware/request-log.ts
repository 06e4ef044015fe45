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

/**
 * The pattern of the route that answers the request (`/v1/tasks/:task_id`), also when a middleware
 * refused it before the handler ran; `unmatched` when no route has a handler for it (404). Routes
 * of middleware are registered for every method (ALL), handlers for theirs.
 */
export function routeOf(c: Context): string {
  const handlers = matchedRoutes(c).filter((r) => r.method !== 'ALL');
  return handlers[handlers.length - 1]?.path ?? 'unmatched';
}

async function codeOf(res: Response): Promise<string | undefined> {
  if (!res.headers.get('content-type')?.startsWith('application/json')) return undefined;
  const body = (await res.clone().json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
  return body?.error?.code;
}

export const requestLog = createMiddleware<AppEnv>(async (c, next) => {
  const started = performance.now();
  await next();
  const seconds = (performance.now() - started) / 1000;
  const route = routeOf(c);
  const status = c.res.status;
  metrics.httpRequests.observe({ method: c.req.method, route, status: String(status) }, seconds);
  const principal = c.get('principal');
  // An error answer's code; the 404 of an unknown endpoint is answered without a throw.
  const errorCode = c.error instanceof DomainError ? c.error.code : status >= 400 ? await codeOf(c.res) : undefined;
  const line = {
    method: c.req.method,
    route,
    status,
    latency_ms: Math.round(seconds * 10_000) / 10,
    request_id: c.get('requestId'),
    project_id: principal?.kind === 'project' ? principal.project.id : null,
    ...(principal?.kind === 'admin' ? { admin: true } : {}),
    ...(c.error && !(c.error instanceof DomainError) ? { err: c.error } : {}),
    ...(errorCode ? { error_code: errorCode } : {}),
  };
  const log = logger('api');
  if (status >= 500) log.error(line, 'request');
  else log.info(line, 'request');
});
