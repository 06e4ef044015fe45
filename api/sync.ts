// POST /v1/tasks/sync (CONTRACT §4): small exports answered with the file itself. The task is
// submitted exactly like POST /v1/tasks and runs as the same workflow, so it is recorded and
// observable; this handler only waits for it, within a per-process number of sync slots (the
// semaphore of seeds/001), and degrades to 202 + the task when it cannot or should not wait.
import type { Context, Hono } from 'hono';
import type { ProjectRow, TaskRow } from '../db/schema.js';
import { getTask } from '../db/tasks.js';
import { isTerminal, type TaskEvents } from '../lib/events.js';
import { primaryFile, sendFile } from './download.js';
import { ApiError } from './errors.js';
import { type LinkSigner, taskJson } from './serialize.js';
import type { ApiDeps, AppEnv } from './types.js';

export interface SyncContext {
  deps: ApiDeps;
  hub: TaskEvents;
  signer: LinkSigner;
  accept(c: Context<AppEnv>, project: ProjectRow): Promise<{ task: TaskRow; created: boolean }>;
  project(c: Context<AppEnv>): ProjectRow;
}

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

export type SyncFallback = 'no_free_slot' | 'over_row_limit' | 'timeout';

export function syncRoutes(app: Hono<AppEnv>, ctx: SyncContext): void {
  const { config, storage, database } = ctx.deps;
  const slots = new Slots(config.SYNC_SLOTS);

  const fallback = async (c: Context<AppEnv>, task: TaskRow, why: SyncFallback) => {
    const latest = (await getTask(database.db, task.id)) ?? task;
    c.header('Location', `/v1/tasks/${task.id}`);
    c.header('X-Sync-Fallback', why);
    return c.json(taskJson(latest, ctx.signer), 202);
  };

  app.post('/sync', async (c) => {
    const project = ctx.project(c);
    const { task } = await ctx.accept(c, project);
    if (!slots.take()) return fallback(c, task, 'no_free_slot');
    try {
      const deadline = Date.now() + config.SYNC_TIMEOUT_MS;
      const wait = { signal: c.req.raw.signal, timeoutMs: config.SYNC_TIMEOUT_MS };
      // The workflow's probe records the total; that decides whether this request keeps waiting.
      const probed = await ctx.hub.waitFor(task.id, (t) => t.totalRows !== null || isTerminal(t.status), wait);
      if (!probed) return fallback(c, task, 'timeout');
      if ((probed.totalRows ?? 0) > config.SYNC_MAX_ROWS) return fallback(c, probed, 'over_row_limit');
      const done = isTerminal(probed.status)
        ? probed
        : await ctx.hub.waitFor(task.id, (t) => isTerminal(t.status), { ...wait, timeoutMs: Math.max(0, deadline - Date.now()) });
      if (!done) return fallback(c, task, 'timeout');
      return await answer(c, done);
    } finally {
      // Released once the export is done: streaming a file within the row limit is cheap.
      slots.give();
    }
  });

  async function answer(c: Context<AppEnv>, task: TaskRow): Promise<Response> {
    c.header('X-Task-Id', task.id);
    if (task.status === 'succeeded') {
      const file = primaryFile(task);
      if (!file) throw new ApiError(410, 'expired', 'the task has no file to download');
      return sendFile(c, storage, file);
    }
    if (task.status === 'failed') {
      const code = task.errorCode ?? 'internal_error';
      // The source is upstream of this request: its failures are a bad gateway, ours a 500.
      throw new ApiError(code.startsWith('source_') ? 502 : 500, code, `the export failed (task ${task.id}): ${task.errorMessage ?? code}`);
    }
    if (task.status === 'expired') throw new ApiError(410, 'expired', `the files of task ${task.id} have expired and were removed`);
    throw new ApiError(409, 'task_cancelled', `task ${task.id} was cancelled before it finished`);
  }
}
