// GET /metrics (CONTRACT §8): Prometheus text of this process (platform/metrics.ts), for the admin
// token, or for anyone with METRICS_PUBLIC=true. The task gauges are counted from the database.
import { Hono } from 'hono';
import { taskGauges } from '../../domain/tasks/queries.js';
import { countTasksWith, metricsContentType, metricsText } from '../../platform/metrics.js';
import { adminOnly, authenticate } from '../middleware/auth.js';
import type { ApiDeps, AppEnv } from '../types.js';

export function metricsApp(deps: ApiDeps) {
  countTasksWith(() => taskGauges(deps.database.db));
  const app = new Hono<AppEnv>();
  if (!deps.config.METRICS_PUBLIC) app.use('*', authenticate(deps), adminOnly);
  app.get('/', async (c) => c.body(await metricsText(), 200, { 'Content-Type': metricsContentType }));
  return app;
}
