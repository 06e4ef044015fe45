// `/:task_id` and everything under it: the task must belong to the caller's project; another
// project's task answers 404 exactly like a missing one (docs/api.md#conventions), and so does another
// operator's task to an operator session, and any other task to a session of one task (an e-mail's
// link). The task is `c.var.task`.
import { createMiddleware } from 'hono/factory';
import { ownedTask as findOwned } from '../../domain/tasks/queries.js';
import { DomainError } from '../../domain/errors.js';
import { operatorScope, taskScope } from './operator.js';
import type { ApiDeps, AppEnv } from '../types.js';

export function ownedTask(deps: ApiDeps) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const task = await findOwned(deps.database.db, c.get('project').id, c.req.param('task_id') ?? '');
    const operator = operatorScope(c);
    if (operator !== undefined && task.operatorId !== operator) throw DomainError.notFound('task');
    const only = taskScope(c);
    if (only !== undefined && task.id !== only) throw DomainError.notFound('task');
    c.set('task', task);
    await next();
  });
}
