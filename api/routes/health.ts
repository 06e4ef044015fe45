// /healthz: liveness with the dependencies' state. /readyz: whether this process takes work;
// 503 from the moment a shutdown begins (platform/lifecycle.ts), while /healthz and every other
// route still answer until the server closes. Not the database's state: an outage would take every
// replica out of the load balancer at once, and clients would get its errors instead of this API's
// 503 database_unavailable with Retry-After (docs/operations.md#readiness-and-shutdown).
import { createRoute } from '@hono/zod-openapi';
import { lifecycle } from '../../platform/lifecycle.js';
import { logger } from '../../platform/logger.js';
import { auth, json, openApiApp, type Responses } from '../openapi.js';
import { healthSchema, readySchema } from '../schemas/responses.js';
import type { ApiDeps, AppEnv } from '../types.js';

const health = createRoute({
  method: 'get',
  path: '/',
  operationId: 'health',
  tags: ['operations'],
  summary: 'Liveness: the API, the database, Temporal and the store',
  security: auth.none,
  responses: { 200: json(healthSchema, 'All reachable.'), 503: json(healthSchema, 'A dependency is not reachable; checks say which.') } as Responses,
});

const ready = createRoute({
  method: 'get',
  path: '/',
  operationId: 'ready',
  tags: ['operations'],
  summary: 'Readiness: 503 from the moment a shutdown begins',
  security: auth.none,
  responses: { 200: json(readySchema, 'Accepting work.'), 503: json(readySchema, 'Shutting down.') } as Responses,
});

const TIMED_OUT = 'timed out after 3s';

/**
 * The answer names the dependency and whether it timed out, never the driver's message: this route
 * is unauthenticated and such messages carry internal addresses. The detail goes to the log.
 */
async function check(name: string, fn: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([fn(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(TIMED_OUT)), 3000)))]);
    return 'ok';
  } catch (err) {
    const message = (err as Error).message;
    logger('api').warn({ dependency: name, err: message }, 'health check failed');
    return message === TIMED_OUT ? `error: ${TIMED_OUT}` : 'error: unreachable';
  } finally {
    clearTimeout(timer);
  }
}

export function healthApp(deps: ApiDeps) {
  const app = openApiApp<AppEnv>();
  app.openapi(health, async (c) => {
    const [database, temporal, storage] = await Promise.all([
      check('database', () => deps.database.ping()),
      check('temporal', () => deps.temporal.workflowService.getSystemInfo({})),
      check('storage', () => deps.storage.ping()),
    ]);
    const ok = database === 'ok' && temporal === 'ok' && storage === 'ok';
    return c.json({ status: ok ? 'ok' : 'unavailable', checks: { database, temporal, storage } }, ok ? 200 : 503);
  });
  return app;
}

export function readyApp() {
  const app = openApiApp<AppEnv>();
  app.openapi(ready, (c) => (lifecycle.stopping ? c.json({ status: 'stopping' as const }, 503) : c.json({ status: 'ready' as const }, 200)));
  return app;
}
