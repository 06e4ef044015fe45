// `/:task_id` and everything under it: the task must belong to the caller's project; another
// project's task answers 404 exactly like a missing one (docs/api.md#conventions), and so does another
// operator's task to an operator session. The task is `c.var.task`.
import { createMiddleware } from 'hono/factory';
import { ownedTask as findOwned } from '../../domain/tasks/queries.js';
import { DomainError } from '../../domain/errors.js';
import { operatorScope } from './operator.js';
import type { ApiDeps, AppEnv } from '../types.js';

export function ownedTask(deps: ApiDeps) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const task = await findOwned(deps.database.db, c.get('project').id, c.req.param('task_id') ?? '');
    const operator = operatorScope(c);
    if (operator !== undefined && task.operatorId !== operator) throw DomainError.notFound('task');
    c.set('task', task);
    await next();
  });
}
