// GET /metrics (docs/operations.md#metrics): Prometheus text of this process (platform/metrics.ts), for the admin
// token, or for anyone with METRICS_PUBLIC=true. The task gauges are read from the counts the database keeps (domain/tasks/counts.ts),
// the usage gauges from the kept usage (domain/usage/usage.ts).
import { createRoute } from '@hono/zod-openapi';
import { taskGauges } from '../../domain/tasks/counts.js';
import { usageGauges } from '../../domain/usage/usage.js';
import { countTasksWith, metricsContentType, metricsText, readUsageWith } from '../../platform/metrics.js';
import { adminOnly, authenticate } from '../middleware/auth.js';
import { auth, errors, openApiApp, type Responses } from '../openapi.js';
import type { ApiDeps, AppEnv } from '../types.js';

export function metricsApp(deps: ApiDeps) {
  countTasksWith(() => taskGauges(deps.database.db));
  readUsageWith(() => usageGauges(deps.database.db));
  const app = openApiApp<AppEnv>();
  if (!deps.config.METRICS_PUBLIC) app.use('*', authenticate(deps), adminOnly);
  const route = createRoute({
    method: 'get',
    path: '/',
    operationId: 'metrics',
    tags: ['operations'],
    summary: 'Prometheus metrics (admin token, or open with METRICS_PUBLIC=true)',
    security: deps.config.METRICS_PUBLIC ? auth.none : auth.admin,
    responses: {
      200: { description: 'Prometheus text exposition format.', content: { 'text/plain': { schema: { type: 'string' } } } },
      ...errors(401, 403),
    } as Responses,
  });
  app.openapi(route, async (c) => c.body(await metricsText(), 200, { 'Content-Type': metricsContentType }));
  return app;
}
