// Actions on one task of the caller's project: cancel, retry, pause, resume, and its callback deliveries.
import { createRoute } from '@hono/zod-openapi';
import { deliveryJson, listDeliveries } from '../../domain/callbacks/deliveries.js';
import { cancelTask, pauseTask, resumeTask, retryTask } from '../../domain/tasks/control.js';
import { taskView } from '../middleware/operator.js';
import { ownedTask } from '../middleware/owned-task.js';
import { auth, errorAnswer, errors, json, keyed, openApiApp, type Responses, taskIdParam } from '../openapi.js';
import { OPERATOR_ANSWER } from '../schemas/operator-view.js';
import { deliveryList, taskSchema } from '../schemas/responses.js';
import type { ApiContext, AppEnv } from '../types.js';

const ACTIONS = {
  cancel: { run: cancelTask, summary: 'Cancel a queued, running or paused task (partial data removed)', conflict: 'already finished (task_finished)' },
  retry: { run: retryTask, summary: 'Run a failed or cancelled task again under the same task_id', conflict: 'not failed or cancelled (task_not_retryable, task_still_stopping)' },
  pause: { run: pauseTask, summary: 'Pause a queued or running task (it keeps what it fetched and frees its slot)', conflict: 'cannot be paused (task_not_pausable)' },
  resume: { run: resumeTask, summary: 'Resume a paused task where it stopped (back to queued)', conflict: 'not paused (task_not_paused)' },
} as const;

export function taskActionsApp(ctx: ApiContext) {
  const deps = { db: ctx.database.db, temporal: ctx.temporal, config: ctx.config };
  const app = openApiApp<AppEnv>();
  const owned = ownedTask(ctx);

  for (const [name, action] of Object.entries(ACTIONS)) {
    const route = createRoute({
      method: 'post',
      path: `/{task_id}/${name}`,
      operationId: `${name}Task`,
      tags: ['tasks'],
      summary: action.summary,
      security: auth.projectOrOperator,
      middleware: [owned],
      request: { params: taskIdParam },
      responses: {
        202: json(taskSchema, `Accepted: the task as it is now. ${OPERATOR_ANSWER}`),
        ...errors(...keyed, 404, ...(name === 'retry' ? [429] : [])),
        409: errorAnswer(409, `The task is ${action.conflict}.`),
      } as Responses,
    });
    app.openapi(route, async (c) => c.json(taskView(c, ctx.signer)(await action.run(deps, c.get('task'))), 202));
  }

  const deliveries = createRoute({
    method: 'get',
    path: '/{task_id}/deliveries',
    operationId: 'listDeliveries',
    tags: ['tasks'],
    summary: "The task's callback delivery attempts",
    security: auth.project,
    middleware: [owned],
    request: { params: taskIdParam },
    responses: { 200: json(deliveryList, 'Attempts, oldest first.'), ...errors(...keyed, 404) } as Responses,
  });
  app.openapi(deliveries, async (c) => {
    const rows = await listDeliveries(deps.db, c.get('task').id);
    return c.json({ items: rows.map(deliveryJson) });
  });
  return app;
}
