// The reconciler (docs/adr/0037-a-task-always-ends.md): a task `running` whose run has ended (or
// whose run Temporal no longer knows) is ended here, so it leaves neither its status nor its
// project's slot behind. A run ends without recording its task's end when the database refused
// that write through all its bounded retries (workflows/profiles.ts, workflows/export-end.ts), or when
// the run was terminated or timed out. Run beside admission's sweep, every minute.
//
// Cheap at scale: only tasks unchanged for longer than the grace period are candidates (a run
// that just started, or one still retrying its last write, is never touched), by the status index,
// and each candidate costs one describe of its workflow (and one read of the close event of a run
// that failed). At most RECONCILE_MAX_PER_PASS candidates a pass, oldest first.
import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, eq, gt, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type TaskRow, tasks } from '../../db/schema.js';
import { isTaskErrorCode, type TaskErrorCode } from '../../model/errors.js';
import type { Config } from '../../platform/config.js';
import { logger } from '../../platform/logger.js';
import { callbackWorkflowId, emailWorkflowId, webhookIdOf } from '../../model/task.js';
import { callbackWorkflow } from '../../workflows/callback.js';
import { emailWorkflow } from '../../workflows/email.js';
import { Admission } from './admission/index.js';
import { emails } from './admission/run.js';
import { endLostRun, type LostRunEnd } from './status.js';

/** A task unchanged for less than this is not looked at: its run may still be writing. */
export const RECONCILE_GRACE_MS = 5 * 60_000;
/** Candidates looked at in one pass (one describe each), in pages of RECONCILE_PAGE. */
export const RECONCILE_MAX_PER_PASS = 1000;
const RECONCILE_PAGE = 100;
/** Describes in flight at once. */
const CONCURRENCY = 8;

export const LOST_RUN_MESSAGE = 'the run ended without recording its result';

export interface ReconcileDeps {
  db: Db;
  temporal: Client;
  config: Config;
}

export interface ReconcileOptions {
  graceMs?: number;
  maxPerPass?: number;
}

/** What became of one task whose run had ended. */
export interface Reconciled {
  task: TaskRow;
  end: LostRunEnd;
}

/** One pass: the tasks it ended, each with what its run left (their projects' next tasks dispatched). */
export async function reconcileRuns(deps: ReconcileDeps, opts: ReconcileOptions = {}): Promise<Reconciled[]> {
  const cutoff = new Date(Date.now() - (opts.graceMs ?? RECONCILE_GRACE_MS));
  const max = opts.maxPerPass ?? RECONCILE_MAX_PER_PASS;
  const ended: Reconciled[] = [];
  let after: Pick<TaskRow, 'createdAt' | 'id'> | undefined;
  for (let seen = 0; seen < max; ) {
    const page = await candidates(deps.db, cutoff, Math.min(RECONCILE_PAGE, max - seen), after);
    if (page.length === 0) break;
    seen += page.length;
    after = page[page.length - 1];
    for (let i = 0; i < page.length; i += CONCURRENCY) {
      const done = await Promise.all(page.slice(i, i + CONCURRENCY).map((t) => reconcileSafely(deps, t)));
      ended.push(...done.filter((r): r is Reconciled => r !== undefined));
    }
  }
  for (const projectId of new Set(ended.map((r) => r.task.projectId))) await new Admission(deps).dispatch(projectId);
  return ended;
}

/** Running tasks unchanged since the cutoff, by creation (tasks_status_created_idx), after `after`. */
function candidates(db: Db, cutoff: Date, limit: number, after?: Pick<TaskRow, 'createdAt' | 'id'>) {
  const next = after ? or(gt(tasks.createdAt, after.createdAt), and(eq(tasks.createdAt, after.createdAt), gt(tasks.id, after.id))) : undefined;
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.status, 'running'), lt(tasks.updatedAt, cutoff), next))
    .orderBy(asc(tasks.createdAt), asc(tasks.id))
    .limit(limit);
}

async function reconcileOne(deps: ReconcileDeps, task: TaskRow): Promise<Reconciled | undefined> {
  const end = await lostRunEnd(deps.temporal, task.id);
  if (!end) return undefined;
  const row = await endLostRun(deps.db, task.id, task.runs, end);
  if (!row) return undefined;
  // The task has ended: a failed notification must not lose that (no later pass sees it running).
  if (end.status === 'failed') await notifyEnd(deps, row).catch((err: unknown) => logger('reconcile', { task_id: row.id }).error({ err }, 'starting the end notifications failed'));
  return { task: row, end };
}

/** reconcileOne, a failure of one task (Temporal or the database away for it) logged, not the pass's. */
function reconcileSafely(deps: ReconcileDeps, task: TaskRow): Promise<Reconciled | undefined> {
  return reconcileOne(deps, task).catch((err: unknown) => {
    logger('reconcile', { task_id: task.id }).warn({ err }, 'reconciling the task failed; the next pass tries again');
    return undefined;
  });
}

/** How a task must end whose run has ended without saying so; undefined while its run is open. */
export async function lostRunEnd(temporal: Client, taskId: string): Promise<LostRunEnd | undefined> {
  const handle = temporal.workflow.getHandle(taskId);
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    return lost('Temporal has no run of it');
  }
  if (status === 'RUNNING') return undefined;
  if (status === 'CANCELLED') return { status: 'cancelled' };
  if (status !== 'FAILED') return lost(`its run ${status.toLowerCase().replace(/_/g, ' ')}`);
  // A run that could not record its failure ends Failed with the task's code and message.
  const failure = await handle.result().then(
    () => undefined,
    (err: unknown) => (err instanceof WorkflowFailedError ? err.cause : undefined),
  );
  if (failure instanceof ApplicationFailure && failure.type && isTaskErrorCode(failure.type)) {
    return { status: 'failed', errorCode: failure.type as TaskErrorCode, errorMessage: failure.message };
  }
  return lost(`its run failed: ${failure?.message ?? 'no failure recorded'}`);
}

const lost = (why: string): LostRunEnd => ({ status: 'failed', errorCode: 'internal_error', errorMessage: `${LOST_RUN_MESSAGE} (${why})` });

/**
 * The end's callback and e-mails, as the run would have started them (workflows/export-end.ts
 * notify): the same workflow ids, so a delivery the run did start is not made twice.
 */
async function notifyEnd(deps: ReconcileDeps, task: TaskRow): Promise<void> {
  const run = task.runs;
  // Rejected when the run had started it (even if it has ended since): one delivery per end.
  const base = { taskQueue: deps.config.TEMPORAL_TASK_QUEUE, workflowIdReusePolicy: 'REJECT_DUPLICATE' as const };
  const event = 'task.failed' as const;
  const recipients = emails(task);
  if (task.callback) {
    await once(() => deps.temporal.workflow.start(callbackWorkflow, { ...base, workflowId: callbackWorkflowId(task.id, run), args: [{ taskId: task.id, run, event, webhookId: webhookIdOf(task.id, run) }] }));
  }
  if (recipients > 0) {
    await once(() => deps.temporal.workflow.start(emailWorkflow, { ...base, workflowId: emailWorkflowId(task.id, run), args: [{ taskId: task.id, run, event, recipients }] }));
  }
}

async function once(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
