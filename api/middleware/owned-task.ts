// `/:task_id` and everything under it: the task must belong to the caller's project; another
// project's task answers 404 exactly like a missing one (docs/api.md#conventions). The task is `c.var.task`.
import { createMiddleware } from 'hono/factory';
import { ownedTask as findOwned } from '../../domain/tasks/queries.js';
import type { ApiDeps, AppEnv } from '../types.js';

export function ownedTask(deps: ApiDeps) {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set('task', await findOwned(deps.database.db, c.get('project').id, c.req.param('task_id') ?? ''));
    await next();
  });
}
