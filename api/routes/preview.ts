// POST /v1/tasks/preview (CONTRACT §9): the first rows of an export as the file itself, rendered
// exactly as the export would be (domain/tasks/preview.ts). No task is created, nothing is stored.
import { Hono } from 'hono';
import { previewTask } from '../../domain/tasks/preview.js';
import { contentDisposition, contentTypeOf } from '../../platform/http.js';
import { rateLimitHeaders } from '../errors.js';
import { previewSchema } from '../schemas/tasks.js';
import type { ApiContext, AppEnv } from '../types.js';
import { jsonBody, valid } from '../validate.js';

export function previewApp(ctx: ApiContext) {
  const deps = { db: ctx.database.db, config: ctx.config, source: ctx.source };
  const app = new Hono<AppEnv>();

  app.post('/preview', jsonBody, valid('json', previewSchema), async (c) => {
    // A caller that goes away stops the source requests.
    const p = await previewTask(deps, c.get('project'), c.req.valid('json'), c.req.raw.signal);
    return c.body(new Uint8Array(p.body), 200, {
      ...rateLimitHeaders(p.rate),
      'Content-Type': contentTypeOf(p.name),
      'Content-Disposition': contentDisposition(p.name),
      'X-Preview-Rows': String(p.rows),
      'X-Source-Total': String(p.sourceTotal),
    });
  });
  return app;
}
