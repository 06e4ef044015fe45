// /healthz: liveness with the dependencies' state (docs/api.md#service-routes). /readyz: whether this process
// takes work; 503 from the moment a shutdown begins (platform/lifecycle.ts), while /healthz and
// every other route still answer until the server closes.
import { createRoute } from '@hono/zod-openapi';
import { lifecycle } from '../../platform/lifecycle.js';
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

async function check(fn: () => Promise<unknown>): Promise<string> {
  try {
    await Promise.race([fn(), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 3s')), 3000))]);
    return 'ok';
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

export function healthApp(deps: ApiDeps) {
  const app = openApiApp<AppEnv>();
  app.openapi(health, async (c) => {
    const [database, temporal, storage] = await Promise.all([
      check(() => deps.database.ping()),
      check(() => deps.temporal.workflowService.getSystemInfo({})),
      check(() => deps.storage.ping()),
    ]);
    const ok = database === 'ok' && temporal === 'ok' && storage === 'ok';
    return c.json({ status: ok ? 'ok' : 'unavailable', checks: { database, temporal, storage } }, ok ? 200 : 503);
  });
  return app;
}

export function readyApp() {
  const app = openApiApp<AppEnv>();
  app.openapi(ready, (c) => (lifecycle.stopping ? c.json({ status: 'stopping' }, 503) : c.json({ status: 'ready' }, 200)));
  return app;
}
