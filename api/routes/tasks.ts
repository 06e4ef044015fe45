// /v1/tasks: submit, list, count, read one, download its file (docs/api.md#tasks).
import { createRoute } from '@hono/zod-openapi';
import { DomainError } from '../../domain/errors.js';
import { countTasks } from '../../domain/tasks/counts.js';
import { listTasks } from '../../domain/tasks/queries.js';
import { submitTask } from '../../domain/tasks/submit.js';
import { signerFor, taskJson } from '../../domain/tasks/view.js';
import { assertDownloadable, primaryFile, principalBy, sendFile } from '../download.js';
import { rateLimitHeaders } from '../errors.js';
import { rangeHeaders, rangeParameters } from '../range.js';
import { scopedFilter, taskView } from '../middleware/operator.js';
import { ownedTask } from '../middleware/owned-task.js';
import { countSubmission } from '../middleware/submissions.js';
import { auth, queryOf, errors, file, json, keyed, openApiApp, rateHeaders, type Responses, taskIdParam } from '../openapi.js';
import { OPERATOR_ANSWER } from '../schemas/operator-view.js';
import { taskCounts, taskPage, taskSchema } from '../schemas/responses.js';
import { filterSchema, idempotencyHeader, listSchema, submitSchema } from '../schemas/tasks.js';
import type { ApiContext, AppEnv } from '../types.js';
import { jsonBody, textGuard } from '../validate.js';

/** A submission's request: counted, the body read as JSON, then the body and the Idempotency-Key validated. */
export const submission = {
  middleware: [countSubmission, jsonBody, textGuard('header', idempotencyHeader)],
  request: {
    body: { content: { 'application/json': { schema: submitSchema } }, required: true },
    headers: idempotencyHeader,
  },
};

const location = { Location: { description: '/v1/tasks/<task_id>', schema: { type: 'string' as const } } };
const submitErrors = errors(400, ...keyed, 413, 429);

export const submitRoute = createRoute({
  method: 'post',
  path: '/',
  operationId: 'submitTask',
  tags: ['tasks'],
  summary: 'Submit an export',
  description: 'The same Idempotency-Key with the same body returns the same task (with another body: 422). An identical request while an earlier one is live returns that task (200).',
  security: auth.project,
  ...submission,
  responses: {
    202: json(taskSchema, 'A new task.', { ...location, ...rateHeaders }),
    200: json(taskSchema, 'Deduplicated: the existing task.', rateHeaders),
    ...submitErrors,
  } as Responses,
});

export function tasksApp(ctx: ApiContext) {
  const { db } = ctx.database;
  const owned = ownedTask(ctx);
  const app = openApiApp<AppEnv>();

  app.openapi(submitRoute, async (c) => {
    const { task, created, rate } = await submitTask(ctx.admission, c.get('project'), c.req.valid('json'), c.req.valid('header')['idempotency-key'], ctx.starter);
    c.set('submitted', created ? 'accepted' : 'deduplicated');
    if (created) c.header('Location', `/v1/tasks/${task.id}`);
    for (const [k, v] of Object.entries(rate ? rateLimitHeaders(rate) : {})) c.header(k, v);
    return c.json(taskJson(task, signerFor(ctx.signer, c.get('project'))), created ? 202 : 200);
  });

  const list = createRoute({
    method: 'get',
    path: '/',
    operationId: 'listTasks',
    tags: ['tasks'],
    summary: "The project's tasks, newest first",
    description: 'Cursor paging: pass next_cursor back as cursor until it is null.',
    security: auth.projectOrOperator,
    ...queryOf(listSchema),
    responses: { 200: json(taskPage, `One page of tasks. ${OPERATOR_ANSWER}`), ...errors(...keyed) } as Responses,
  });
  app.openapi(list, async (c) => {
    const { items, nextCursor } = await listTasks(db, c.get('project').id, scopedFilter(c, c.req.valid('query')));
    return c.json({ items: items.map(taskView(c, ctx.signer)), next_cursor: nextCursor });
  });

  const counts = createRoute({
    method: 'get',
    path: '/counts',
    operationId: 'countTasks',
    tags: ['tasks'],
    summary: "The project's tasks counted by status",
    security: auth.projectOrOperator,
    ...queryOf(filterSchema),
    responses: { 200: json(taskCounts, 'Counts by status.'), ...errors(...keyed) } as Responses,
  });
  app.openapi(counts, async (c) => c.json({ counts: await countTasks(db, c.get('project').id, scopedFilter(c, c.req.valid('query'))) }));

  const get = createRoute({
    method: 'get',
    path: '/{task_id}',
    operationId: 'getTask',
    tags: ['tasks'],
    summary: 'One task',
    security: auth.projectOrOperator,
    middleware: [owned],
    request: { params: taskIdParam },
    responses: { 200: json(taskSchema, `The task. ${OPERATOR_ANSWER}`), ...errors(...keyed, 404) } as Responses,
  });
  app.openapi(get, (c) => c.json(taskView(c, ctx.signer)(c.get('task'))));

  const download = createRoute({
    method: 'get',
    path: '/{task_id}/download',
    operationId: 'downloadTask',
    tags: ['tasks'],
    summary: "The task's file: the single file, or the zip of all parts",
    security: auth.projectOrOperator,
    middleware: [owned],
    request: { params: taskIdParam },
    parameters: rangeParameters,
    responses: {
      200: file('The file, streamed.', { 'X-Content-SHA256': { description: 'SHA-256 of the file (hex).', schema: { type: 'string' } }, ...rangeHeaders }),
      206: file('The byte range asked for (Range), streamed.', { 'Content-Range': { description: 'bytes first-last/size', schema: { type: 'string' } }, ...rangeHeaders }),
      ...errors(...keyed, 404, 409, 410),
    } as Responses,
  });
  app.openapi(download, async (c) => {
    const task = c.get('task');
    assertDownloadable(task);
    const f = primaryFile(task);
    if (!f) throw new DomainError('expired', 'the task has no file to download');
    return sendFile(c, ctx.storage, f, { db, config: ctx.config, task, via: 'api', by: principalBy(c) });
  });
  return app;
}
