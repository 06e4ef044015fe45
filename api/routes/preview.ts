// POST /v1/tasks/preview (docs/api.md#post-v1taskspreview): the first rows of an export as the file itself, rendered
// exactly as the export would be (domain/tasks/preview.ts). No task is created, nothing is stored.
import { createRoute } from '@hono/zod-openapi';
import { previewTask } from '../../domain/tasks/preview.js';
import { contentDisposition, contentTypeOf } from '../../platform/http.js';
import { rateLimitHeaders } from '../errors.js';
import { auth, jsonBodyOf, exportErrors, file, openApiApp, rateHeaders, type Responses } from '../openapi.js';
import { previewSchema } from '../schemas/tasks.js';
import type { ApiContext, AppEnv } from '../types.js';
import { bodyOf } from '../download.js';

const previewRoute = createRoute({
  method: 'post',
  path: '/preview',
  operationId: 'previewTask',
  tags: ['tasks'],
  summary: 'The first rows of an export, laid out as the export would be',
  description: 'The body of POST /v1/tasks plus `rows` (of each sheet). Only what is needed is fetched from the source; no task is created.',
  security: auth.project,
  ...jsonBodyOf(previewSchema),
  responses: {
    200: file('The rendered file of those rows.', {
      ...rateHeaders,
      'X-Preview-Rows': { description: 'Rows rendered.', schema: { type: 'integer' } },
      'X-Source-Total': { description: "The source's total.", schema: { type: 'integer' } },
    }),
    ...exportErrors(400, 401, 403, 413, 429),
  } as Responses,
});

export function previewApp(ctx: ApiContext) {
  const deps = { db: ctx.database.db, config: ctx.config, source: ctx.source, sealingKeys: ctx.secrets.destinationKeys };
  const app = openApiApp<AppEnv>();

  app.openapi(previewRoute, async (c) => {
    // A caller that goes away stops the source requests.
    const p = await previewTask(deps, c.get('project'), c.req.valid('json'), c.req.raw.signal);
    return c.body(bodyOf(p.body), 200, {
      ...rateLimitHeaders(p.rate),
      'Content-Type': contentTypeOf(p.name),
      'Content-Disposition': contentDisposition(p.name),
      'X-Preview-Rows': String(p.rows),
      'X-Source-Total': String(p.sourceTotal),
    });
  });
  return app;
}
