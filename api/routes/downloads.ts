// The record of downloads (docs/downloads.md): GET /v1/downloads (the project's, or an operator
// session's own) and GET /v1/downloads/count. A task's own list is GET /v1/tasks/:id/downloads
// (downloadsOfTaskApp below, mounted under /v1/tasks).
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { countDownloads, type DownloadFilter, downloadJson, listDownloads } from '../../domain/downloads/records.js';
import { operatorScope, taskScope } from '../middleware/operator.js';
import { ownedTask } from '../middleware/owned-task.js';
import { auth, errors, json, keyed, openApiApp, queryOf, type Responses, taskIdParam } from '../openapi.js';
import { downloadCount, downloadCountSchema, downloadListSchema, downloadPage, downloadPageSchema, taskDownloads } from '../schemas/downloads.js';
import type { ApiContext, AppEnv } from '../types.js';
import { textGuard } from '../validate.js';

const OWN = 'An operator session sees the downloads made through its own sessions (a session of one task: of that task).';

/** The project's downloads, or an operator session's own. */
function scope(c: Context<AppEnv>): DownloadFilter {
  return { projectId: c.get('project').id, operatorId: operatorScope(c), taskId: taskScope(c) };
}

export function downloadsApp(ctx: ApiContext) {
  const { db } = ctx.database;
  const app = openApiApp<AppEnv>();

  const list = createRoute({
    method: 'get',
    path: '/',
    operationId: 'listDownloads',
    tags: ['downloads'],
    summary: "The project's downloads, newest first",
    description: `Every download of every task's file, cursor-paged: pass next_cursor back as cursor until it is null. ${OWN}`,
    security: auth.projectOrOperator,
    ...queryOf(downloadListSchema),
    responses: { 200: json(downloadPage, 'One page of downloads.'), ...errors(...keyed) } as Responses,
  });
  app.openapi(list, async (c) => {
    const q = c.req.valid('query');
    const { items, nextCursor } = await listDownloads(db, { ...scope(c), since: q.since, limit: q.limit, cursor: q.cursor });
    return c.json({ items: items.map(downloadJson), next_cursor: nextCursor });
  });

  const count = createRoute({
    method: 'get',
    path: '/count',
    operationId: 'countDownloads',
    tags: ['downloads'],
    summary: "How many downloads the project's files had",
    description: `Counted up to 10,000. ${OWN}`,
    security: auth.projectOrOperator,
    ...queryOf(downloadCountSchema),
    responses: { 200: json(downloadCount, 'The count.'), ...errors(...keyed) } as Responses,
  });
  app.openapi(count, async (c) => c.json(await countDownloads(db, { ...scope(c), since: c.req.valid('query').since })));
  return app;
}

export function downloadsOfTaskApp(ctx: ApiContext) {
  const { db } = ctx.database;
  const app = openApiApp<AppEnv>();
  const route = createRoute({
    method: 'get',
    path: '/{task_id}/downloads',
    operationId: 'listTaskDownloads',
    tags: ['tasks', 'downloads'],
    summary: "The downloads of the task's files, newest first",
    description: 'Cursor-paged like the other lists (next_cursor; null at the end).',
    security: auth.project,
    middleware: [ownedTask(ctx), textGuard('query', downloadPageSchema)],
    request: { params: taskIdParam, query: downloadPageSchema },
    responses: { 200: json(taskDownloads, 'One page of downloads.'), ...errors(...keyed, 404) } as Responses,
  });
  app.openapi(route, async (c) => {
    const task = c.get('task');
    const q = c.req.valid('query');
    const { items, nextCursor } = await listDownloads(db, { projectId: task.projectId, taskId: task.id, limit: q.limit, cursor: q.cursor });
    return c.json({ items: items.map(downloadJson), next_cursor: nextCursor });
  });
  return app;
}
