// /v1/admin (CONTRACT §8, admin token only): tasks across projects, for operators.
import { Hono } from 'hono';
import { countAllTasks, listAllTasks } from '../../domain/tasks/queries.js';
import { taskJson } from '../../domain/tasks/view.js';
import { adminFilterSchema, adminListSchema } from '../schemas/tasks.js';
import type { ApiContext, AppEnv } from '../types.js';
import { valid } from '../validate.js';

export function adminApp(ctx: ApiContext) {
  const { db } = ctx.database;
  const app = new Hono<AppEnv>();

  app.get('/tasks', valid('query', adminListSchema), async (c) => {
    const { items, nextCursor } = await listAllTasks(db, c.req.valid('query'));
    return c.json({ items: items.map((t) => taskJson(t, ctx.signer)), next_cursor: nextCursor });
  });

  app.get('/tasks/counts', valid('query', adminFilterSchema), async (c) => {
    return c.json({ counts: await countAllTasks(db, c.req.valid('query')) });
  });
  return app;
}
