// GET /v1/usage (docs/usage.md): the project's use per UTC day and its bytes stored now, read from
// the usage the database keeps (domain/usage/usage.ts).
import { createRoute } from '@hono/zod-openapi';
import { projectUsage } from '../../domain/usage/usage.js';
import { auth, errors, json, keyed, openApiApp, queryOf, type Responses } from '../openapi.js';
import { usageQuery, usageSchema } from '../schemas/usage.js';
import type { ApiContext, AppEnv } from '../types.js';

const route = createRoute({
  method: 'get',
  path: '/',
  operationId: 'getUsage',
  tags: ['usage'],
  summary: "The project's use per day and its bytes stored",
  description: 'Days are UTC dates; every day of the range is listed, zeros included. At most 366 days (422 beyond).',
  security: auth.project,
  ...queryOf(usageQuery),
  responses: { 200: json(usageSchema, 'The days of the range and the bytes stored now.'), ...errors(...keyed) } as Responses,
});

export function usageApp(ctx: ApiContext) {
  const app = openApiApp<AppEnv>();
  app.openapi(route, async (c) => c.json(await projectUsage(ctx.database.db, c.get('project').id, c.req.valid('query'))));
  return app;
}
