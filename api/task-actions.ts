// Actions on one task (cancel, retry), its callback deliveries, and the sync export: registered on
// the tasks sub-app so they share its authentication and its "own project only" lookup.
import { asc, eq } from 'drizzle-orm';
import type { Hono } from 'hono';
import { deliveries, type DeliveryRow, type TaskRow } from '../db/schema.js';
import { cancelTask, ControlError, retryTask } from '../lib/control.js';
import { ApiError } from './errors.js';
import { type SyncContext, syncRoutes } from './sync.js';
import { taskJson } from './serialize.js';
import type { AppEnv } from './types.js';

export interface TaskActionsContext extends SyncContext {
  ownTask(projectId: string, taskId: string): Promise<TaskRow>;
}

// Retries span at most CALLBACK_RETRY_WINDOW_MS, so one event has tens of attempts, not thousands.
const MAX_DELIVERIES_LISTED = 500;

export function deliveryJson(d: DeliveryRow) {
  return {
    delivery_id: d.id,
    event: d.event,
    webhook_id: d.webhookId,
    attempt: d.attempt,
    status_code: d.statusCode,
    latency_ms: d.latencyMs,
    error: d.error,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
  };
}

const toApiError = (err: unknown): never => {
  if (!(err instanceof ControlError)) throw err;
  throw new ApiError(err.status, err.code, err.message, undefined, err.retryAfter ? { 'Retry-After': String(err.retryAfter) } : undefined);
};

export function taskActions(app: Hono<AppEnv>, ctx: TaskActionsContext): void {
  const { db } = ctx.deps.database;
  const control = { db, temporal: ctx.deps.temporal, config: ctx.deps.config };

  syncRoutes(app, ctx);

  app.post('/:task_id/cancel', async (c) => {
    const task = await ctx.ownTask(ctx.project(c).id, c.req.param('task_id'));
    const row = await cancelTask(control, task).catch(toApiError);
    return c.json(taskJson(row, ctx.signer), 202);
  });

  app.post('/:task_id/retry', async (c) => {
    const task = await ctx.ownTask(ctx.project(c).id, c.req.param('task_id'));
    const row = await retryTask(control, task).catch(toApiError);
    return c.json(taskJson(row, ctx.signer), 202);
  });

  app.get('/:task_id/deliveries', async (c) => {
    const task = await ctx.ownTask(ctx.project(c).id, c.req.param('task_id'));
    const rows = await db
      .select()
      .from(deliveries)
      .where(eq(deliveries.taskId, task.id))
      .orderBy(asc(deliveries.createdAt), asc(deliveries.attempt))
      .limit(MAX_DELIVERIES_LISTED);
    return c.json({ items: rows.map(deliveryJson) });
  });
}
