// Actions on one task of the caller's project: cancel, retry, pause, resume, and its callback deliveries.
import { Hono } from 'hono';
import { deliveryJson, listDeliveries } from '../../domain/callbacks/deliveries.js';
import { cancelTask, pauseTask, resumeTask, retryTask } from '../../domain/tasks/control.js';
import { taskJson } from '../../domain/tasks/view.js';
import { ownedTask } from '../middleware/owned-task.js';
import type { ApiContext, AppEnv } from '../types.js';

export function taskActionsApp(ctx: ApiContext) {
  const deps = { db: ctx.database.db, temporal: ctx.temporal, config: ctx.config };
  const app = new Hono<AppEnv>();
  const owned = ownedTask(ctx);

  app.post('/:task_id/cancel', owned, async (c) => c.json(taskJson(await cancelTask(deps, c.get('task')), ctx.signer), 202));

  app.post('/:task_id/retry', owned, async (c) => c.json(taskJson(await retryTask(deps, c.get('task')), ctx.signer), 202));

  app.post('/:task_id/pause', owned, async (c) => c.json(taskJson(await pauseTask(deps, c.get('task')), ctx.signer), 202));

  app.post('/:task_id/resume', owned, async (c) => c.json(taskJson(await resumeTask(deps, c.get('task')), ctx.signer), 202));

  app.get('/:task_id/deliveries', owned, async (c) => {
    const rows = await listDeliveries(deps.db, c.get('task').id);
    return c.json({ items: rows.map(deliveryJson) });
  });
  return app;
}
