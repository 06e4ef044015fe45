// /healthz: liveness with the dependencies' state (CONTRACT §1). /readyz: whether this process
// takes work; 503 from the moment a shutdown begins (platform/lifecycle.ts), while /healthz and
// every other route still answer until the server closes.
import { Hono } from 'hono';
import { lifecycle } from '../../platform/lifecycle.js';
import type { ApiDeps, AppEnv } from '../types.js';

async function check(fn: () => Promise<unknown>): Promise<string> {
  try {
    await Promise.race([fn(), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 3s')), 3000))]);
    return 'ok';
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

export function healthApp(deps: ApiDeps) {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => {
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
  const app = new Hono<AppEnv>();
  app.get('/', (c) => (lifecycle.stopping ? c.json({ status: 'stopping' }, 503) : c.json({ status: 'ready' }, 200)));
  return app;
}
