import { Hono } from 'hono';
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
