// /v1/tasks: submit, list, count, read one, download its file (CONTRACT §4).
import { Hono } from 'hono';
import { DomainError } from '../../domain/errors.js';
import { countTasks, listTasks } from '../../domain/tasks/queries.js';
import { submitTask } from '../../domain/tasks/submit.js';
import { taskJson } from '../../domain/tasks/view.js';
import { assertDownloadable, primaryFile, sendFile } from '../download.js';
import { rateLimitHeaders } from '../errors.js';
import { ownedTask } from '../middleware/owned-task.js';
import { countSubmission } from '../middleware/submissions.js';
import { filterSchema, idempotencyFieldNames, idempotencyHeader, listSchema, submitSchema } from '../schemas/tasks.js';
import type { ApiContext, AppEnv } from '../types.js';
import { jsonBody, valid } from '../validate.js';

/** The middleware chain of a submission: counted, the body as JSON, then the body and the Idempotency-Key validated. */
export const submission = [countSubmission, jsonBody, valid('json', submitSchema), valid('header', idempotencyHeader, idempotencyFieldNames)] as const;

export function tasksApp(ctx: ApiContext) {
  const { db } = ctx.database;
  const deps = { db, temporal: ctx.temporal, config: ctx.config };
  const owned = ownedTask(ctx);
  const app = new Hono<AppEnv>();

  app.post('/', ...submission, async (c) => {
    const { task, created, rate } = await submitTask(deps, c.get('project'), c.req.valid('json'), c.req.valid('header')['idempotency-key']);
    c.set('submitted', created ? 'accepted' : 'deduplicated');
    if (created) c.header('Location', `/v1/tasks/${task.id}`);
    for (const [k, v] of Object.entries(rate ? rateLimitHeaders(rate) : {})) c.header(k, v);
    return c.json(taskJson(task, ctx.signer), created ? 202 : 200);
  });

  app.get('/', valid('query', listSchema), async (c) => {
    const { items, nextCursor } = await listTasks(db, c.get('project').id, c.req.valid('query'));
    return c.json({ items: items.map((t) => taskJson(t, ctx.signer)), next_cursor: nextCursor });
  });

  app.get('/counts', valid('query', filterSchema), async (c) => {
    return c.json({ counts: await countTasks(db, c.get('project').id, c.req.valid('query')) });
  });

  app.get('/:task_id', owned, (c) => c.json(taskJson(c.get('task'), ctx.signer)));

  app.get('/:task_id/download', owned, async (c) => {
    const task = c.get('task');
    assertDownloadable(task);
    const file = primaryFile(task);
    if (!file) throw new DomainError('expired', 'the task has no file to download');
    return sendFile(c, ctx.storage, file);
  });
  return app;
}
