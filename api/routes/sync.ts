// POST /v1/tasks/sync (docs/api.md#post-v1taskssync): small exports answered with the file itself. The task is
// submitted exactly like POST /v1/tasks and runs as the same workflow, so it is recorded and
// observable; this handler only waits for it, within a per-process number of sync slots (the
// semaphore the original design asks for), and degrades to 202 + the task when it cannot or should not wait.
import { createRoute } from '@hono/zod-openapi';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Context } from 'hono';
import type { TaskRow } from '../../db/schema.js';
import { DomainError } from '../../domain/errors.js';
import { getTask } from '../../domain/tasks/queries.js';
import { startInline, startSync } from '../../domain/tasks/admission/index.js';
import { submitTask } from '../../domain/tasks/submit.js';
import { signerFor, taskJson } from '../../domain/tasks/view.js';
import { taskErrorCode } from '../../model/errors.js';
import { isTerminal } from '../../model/task.js';
import { lifecycle } from '../../platform/lifecycle.js';
import { logger } from '../../platform/logger.js';
import { primaryFile, principalBy, sendFile } from '../download.js';
import { failedExport } from '../errors.js';
import { auth, exportErrors, file, json, openApiApp, type Responses } from '../openapi.js';
import { taskSchema } from '../schemas/responses.js';
import type { ApiContext, AppEnv } from '../types.js';
import { submission } from './tasks.js';

/**
 * A counting semaphore that never queues: a request either takes a slot now or goes async.
 * Hand-written because it is four lines and queueing libraries (p-limit, async-sema) wait.
 */
class Slots {
  constructor(private free: number) {}
  take(): boolean {
    if (this.free === 0) return false;
    this.free -= 1;
    return true;
  }
  give(): void {
    this.free += 1;
  }
}

/** Where a sync request's milliseconds went, for the Server-Timing header (bench/sync.ts reads it). */
class ServerTiming {
  private last = performance.now();
  private readonly steps: string[] = [];
  step(name: string, desc?: string): void {
    const now = performance.now();
    this.steps.push(`${name};dur=${(now - this.last).toFixed(1)}${desc ? `;desc="${desc}"` : ''}`);
    this.last = now;
  }
  header(): string {
    return this.steps.join(', ');
  }
}

export type SyncFallback = 'no_free_slot' | 'over_row_limit' | 'timeout';

/**
 * The longest a sync run's slot stays taken after its caller left (docs/adr/0037-a-task-always-ends.md).
 * A sync run is small and each of its steps is bounded (workflows/profiles.ts `local`: 2 minutes
 * each), so it ends long before this; the slot is given back as soon as its task ends or its run
 * has closed (a run whose end could not be recorded leaves its task `running` until the reconciler).
 */
export const SYNC_HOLD_MAX_MS = 30 * 60_000;
/** How often a held slot looks at its run again. */
const HOLD_CHECK_MS = 5000;

const syncRoute = createRoute({
  method: 'post',
  path: '/sync',
  operationId: 'submitSyncTask',
  tags: ['tasks'],
  summary: 'Export small data and answer with the file itself',
  description:
    "Same body as POST /v1/tasks except destination_id (refused: the answer is the file). Within the sync row limit and with a free sync slot the answer is the file (X-Task-Id names the task); otherwise it degrades to 202 with the task object (X-Sync-Fallback: no_free_slot | over_row_limit | timeout). A failed export answers with the task's error code.",
  security: auth.project,
  ...submission,
  responses: {
    200: file('The file.', { 'X-Task-Id': { description: 'The task that made it.', schema: { type: 'string' } } }),
    202: json(taskSchema, 'Degraded to the asynchronous path: the task.', {
      Location: { description: '/v1/tasks/<task_id>', schema: { type: 'string' } },
      'X-Sync-Fallback': { description: 'no_free_slot, over_row_limit or timeout', schema: { type: 'string' } },
    }),
    ...exportErrors(400, 401, 403, 409, 410, 413, 429),
  } as Responses,
});

/**
 * The client a sync run starts through: that of this process's sync Worker, started on first use
 * (app/sync-worker.ts), so the run starts eagerly on it. A Worker that cannot start is logged, not
 * answered: the run starts through the task queue, where any sync Worker of the deployment takes
 * it, or the request falls back on its timeout.
 */
async function eagerClient(ctx: ApiContext): Promise<Client | undefined> {
  if (!ctx.wakeSyncWorker) return ctx.eagerTemporal;
  return ctx.wakeSyncWorker().catch((err: unknown) => {
    logger('sync').warn({ err }, 'the sync worker did not start; this run goes through the task queue');
    return undefined;
  });
}

export function syncApp(ctx: ApiContext) {
  const { config, storage, database } = ctx;
  const { admission } = ctx;
  const slots = new Slots(config.SYNC_SLOTS);
  const app = openApiApp<AppEnv>();

  const fallback = async (c: Context<AppEnv>, task: TaskRow, why: SyncFallback) => {
    const latest = (await getTask(database.db, task.id)) ?? task;
    c.header('Location', `/v1/tasks/${task.id}`);
    c.header('X-Sync-Fallback', why);
    return c.json(taskJson(latest, signerFor(ctx.signer, c.get('project'))), 202);
  };

  app.openapi(syncRoute, async (c) => {
    const timing = new ServerTiming();
    const body = c.req.valid('json');
    const key = c.req.valid('header')['idempotency-key'];
    if (body.destination_id) throw DomainError.invalid('destination_id', 'a sync export answers with the file itself; submit to POST /v1/tasks to deliver into a destination');
    // Without a free slot the task is submitted as an ordinary one, into its project's queue.
    if (!slots.take()) {
      const { task, created } = await submitTask(admission, c.get('project'), body, key, startInline(admission));
      c.set('submitted', created ? 'accepted' : 'deduplicated');
      return fallback(c, task, 'no_free_slot');
    }
    let running: TaskRow | undefined;
    try {
      const deadline = Date.now() + config.SYNC_TIMEOUT_MS;
      const eager = await eagerClient(ctx);
      timing.step('worker');
      const { task, created } = await submitTask(
        admission,
        c.get('project'),
        body,
        key,
        startSync(admission, eager, { inserted: () => timing.step('submit'), started: (eagerly) => timing.step('start', eagerly ? 'eager' : 'task queue') }),
      );
      c.set('submitted', created ? 'accepted' : 'deduplicated');
      // The project had no free slot: the task waits in its queue like any other.
      if (created && !task.admittedAt) return fallback(c, task, 'no_free_slot');
      running = task;
      const wait = { signal: c.req.raw.signal, timeoutMs: Math.max(0, deadline - Date.now()) };
      const seen = await ctx.hub.waitFor(task.id, syncEnded, wait);
      timing.step('export');
      if (!seen) return fallback(c, task, 'timeout');
      running = undefined;
      if (!isTerminal(seen.status)) return fallback(c, seen, 'over_row_limit');
      c.header('Server-Timing', timing.header());
      return await answer(c, seen);
    } finally {
      // A caller that left (or timed out) does not end the run: its slot stays taken until the
      // run ends, so abandoned requests never run more exports at once than there are slots.
      // Given back in every case: a failed look at the run (the database away) ends the hold too.
      if (running) void holdUntilEnded(running.id).catch(noteHoldFailure).finally(() => slots.give());
      else slots.give();
    }
  });

  /** Ended, or probed over the limit (the sync run then put it back in the queue as an ordinary export). */
  function syncEnded(t: TaskRow): boolean {
    return isTerminal(t.status) || (t.totalRows ?? 0) > config.SYNC_MAX_ROWS;
  }

  /**
   * Waits for the run of an abandoned sync request to end: its task ended, or its run closed
   * (ended without recording it); gives up at shutdown or after SYNC_HOLD_MAX_MS.
   */
  async function holdUntilEnded(taskId: string): Promise<void> {
    const until = Date.now() + SYNC_HOLD_MAX_MS;
    while (Date.now() < until && !lifecycle.stopping) {
      if (await ctx.hub.waitFor(taskId, syncEnded, { timeoutMs: HOLD_CHECK_MS })) return;
      if (!(await getTask(database.db, taskId))) return;
      if (!(await runOpen(taskId))) return;
    }
  }

  /** Whether the task's workflow run is still open (describe: one call to Temporal). */
  async function runOpen(taskId: string): Promise<boolean> {
    try {
      return (await ctx.temporal.workflow.getHandle(taskId).describe()).status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  function noteHoldFailure(err: unknown): void {
    logger('sync').warn({ err }, 'a held sync slot could not follow its run: the slot is given back');
  }

  async function answer(c: Context<AppEnv>, task: TaskRow): Promise<Response> {
    c.header('X-Task-Id', task.id);
    if (task.status === 'succeeded') {
      const file = primaryFile(task);
      if (!file) throw new DomainError('expired', 'the task has no file to download');
      return sendFile(c, storage, file, { db: database.db, config, task, via: 'sync', by: principalBy(c) });
    }
    // A failed export answers with its own code: 502 when the source is at fault, 422 the data,
    // 500 ours, without the raw text of an error of ours (api/errors.ts).
    // A row failed before the vocabulary was enforced may hold another type ("Error").
    if (task.status === 'failed') throw failedExport(task.id, taskErrorCode(task.errorCode), task.errorMessage);
    if (task.status === 'expired') throw new DomainError('expired', `the files of task ${task.id} have expired and were removed`);
    throw new DomainError('task_cancelled', `task ${task.id} was cancelled before it finished`);
  }
  return app;
}
