// /v1/admin (docs/api.md#admin, admin token only): tasks and usage across projects, for operators.
import { createRoute } from '@hono/zod-openapi';
import { countAllTasks } from '../../domain/tasks/counts.js';
import { listAllTasks } from '../../domain/tasks/queries.js';
import { signerFor, taskJson } from '../../domain/tasks/view.js';
import { projectsSettings } from '../../domain/projects/projects.js';
import type { TaskRow } from '../../db/schema.js';
import { adminUsage } from '../../domain/usage/usage.js';
import { auth, queryOf, errors, json, keyed, openApiApp, type Responses } from '../openapi.js';
import { taskCounts, taskPage } from '../schemas/responses.js';
import { adminFilterSchema, adminListSchema } from '../schemas/tasks.js';
import { adminUsagePage, adminUsageQuery } from '../schemas/usage.js';
import type { ApiContext, AppEnv } from '../types.js';

const list = createRoute({
  method: 'get',
  path: '/tasks',
  operationId: 'adminListTasks',
  tags: ['admin'],
  summary: 'Tasks across projects (admin), newest first',
  security: auth.admin,
  ...queryOf(adminListSchema),
  responses: { 200: json(taskPage, 'One page of tasks.'), ...errors(...keyed) } as Responses,
});

const counts = createRoute({
  method: 'get',
  path: '/tasks/counts',
  operationId: 'adminCountTasks',
  tags: ['admin'],
  summary: 'Tasks across projects counted by status (admin)',
  security: auth.admin,
  ...queryOf(adminFilterSchema),
  responses: { 200: json(taskCounts, 'Counts by status.'), ...errors(...keyed) } as Responses,
});

const usage = createRoute({
  method: 'get',
  path: '/usage',
  operationId: 'adminUsage',
  tags: ['admin'],
  summary: "Each project's use over a range of days, and its bytes stored (admin)",
  description: 'UTC dates, both ends included, at most 366 days. Projects with any use in the range or any file stored, by project id; cursor paging.',
  security: auth.admin,
  ...queryOf(adminUsageQuery),
  responses: { 200: json(adminUsagePage, 'One page of projects.'), ...errors(...keyed) } as Responses,
});

export function adminApp(ctx: ApiContext) {
  const { db } = ctx.database;
  const app = openApiApp<AppEnv>();
  app.openapi(list, async (c) => {
    const { items, nextCursor } = await listAllTasks(db, c.req.valid('query'));
    // Each project's links as its own key would get them (downloads_through_api).
    const settings = await projectsSettings(db, items.map((t) => t.projectId));
    const view = (t: TaskRow) => taskJson(t, signerFor(ctx.signer, settings.get(t.projectId) ?? { settings: {} }));
    return c.json({ items: items.map(view), next_cursor: nextCursor });
  });
  app.openapi(counts, async (c) => c.json({ counts: await countAllTasks(db, c.req.valid('query')) }));
  app.openapi(usage, async (c) => c.json(await adminUsage(db, c.req.valid('query'))));
  return app;
}
