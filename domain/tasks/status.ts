// The task row's state machine: every change of status or stage, and the progress the workflow
// reports, goes through this module. Each change is one conditional UPDATE, so two writers (the
// API cancelling, the workflow finishing) cannot both win, and a cancelled task is never revived.
import { and, asc, eq, inArray, lt, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.js';
import { type TaskRow, tasks } from '../../db/schema.js';
import { ACTIVE_STATUSES, type LaneProgress, RETRYABLE_STATUSES, RUNNABLE_STATUSES, type StoredFile, type TaskStage } from '../../model/task.js';
import type { TaskErrorCode } from '../../model/errors.js';
import { storableJson, storableText } from '../../model/storable.js';
import { DomainError } from '../errors.js';
import { claimMs } from './admission/claim.js';

/** Removes a task whose workflow could not be started (nothing ran, nothing was stored). */
export async function deleteUnstarted(db: Db, taskId: string): Promise<void> {
  await db.delete(tasks).where(and(eq(tasks.id, taskId), eq(tasks.status, 'queued')));
}

export type StartOutcome = 'started' | 'not_queued' | 'not_admitted';

/**
 * queued → running, once admission has reserved a slot for the task (admission/). A task not
 * admitted yet is left queued: only a run whose admission was withdrawn as it started asks that early.
 */
export async function markRunning(db: Db, taskId: string): Promise<StartOutcome> {
  // dc_start_task (db/functions/dc_start_task.sql): the conditional update, and the status
  // when it matched nothing, in one call with kept plans.
  const now = new Date().toISOString();
  const [row] = rowsOf<{ outcome: StartOutcome | null }>(await db.execute(sql`select dc_start_task(${taskId}, ${now}::timestamptz) as outcome`));
  if (!row?.outcome) throw DomainError.notFound(`task ${taskId}`);
  return row.outcome;
}

/**
 * A sync export over the sync row limit goes back to its project's queue (running → queued) in
 * its original place; its probe's totals stay, so the caller is told the size. Admitted at once
 * when the project has a free slot, the sync run continuing as the export; otherwise it waits
 * like any queued task. The slot is admission's to decide: dc_requeue_task
 * (db/functions/dc_requeue_task.sql) counts it under the admission lock.
 */
export async function requeueRunning(db: Db, taskId: string): Promise<{ requeued: boolean; admitted: boolean }> {
  const [row] = rowsOf<{ requeued: boolean; admitted: boolean }>(await db.execute(sql`select * from dc_requeue_task(${taskId}, ${claimMs()})`));
  return { requeued: row?.requeued ?? false, admitted: row?.admitted ?? false };
}

/** Updates a task that is still running; a task cancelled meanwhile is left as it is. */
async function updateRunning(db: Db, taskId: string, set: Partial<typeof tasks.$inferInsert>): Promise<boolean> {
  const rows = await db
    .update(tasks)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'running')))
    .returning({ id: tasks.id });
  return rows.length > 0;
}

export const setStage = (db: Db, taskId: string, stage: TaskStage): Promise<boolean> => updateRunning(db, taskId, { stage });

/** What the probe learned: the export's size; fetching starts from no progress. */
export const recordProbe = (db: Db, taskId: string, totalRows: number, pagesTotal: number): Promise<boolean> =>
  updateRunning(db, taskId, { totalRows, pagesTotal, stage: 'fetching', lanes: {} });

export async function setLaneProgress(db: Db, taskId: string, lane: number | 'staged', progress: LaneProgress[string]): Promise<void> {
  // jsonb_set touches only this lane's key, so parallel lanes never overwrite each other.
  await db
    .update(tasks)
    .set({
      lanes: sql`jsonb_set(${tasks.lanes}, ${`{${lane}}`}::text[], ${JSON.stringify(progress)}::jsonb)`,
      updatedAt: new Date(),
    })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'running')));
}

/**
 * A resumed export's progress: what is staged already counts as one finished lane, and the lanes
 * of the paused run are dropped (the resumed run numbers its own lanes from 0 again).
 */
export async function restartProgress(db: Db, taskId: string, staged: LaneProgress[string]): Promise<void> {
  await db
    .update(tasks)
    .set({ lanes: { staged }, updatedAt: new Date() })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'running')));
}

/** A failed task may keep files: a delivery that failed leaves them downloadable until expiresAt. */
export type Outcome =
  | { status: 'succeeded'; files: StoredFile[]; expiresAt: Date }
  | { status: 'failed'; errorCode: TaskErrorCode; errorMessage: string; kept?: { files: StoredFile[]; expiresAt: Date } };

/**
 * queued or running → succeeded or failed; false when the task had already ended (cancelled).
 * The message (it may quote a source's column name) and the files' names are made storable here,
 * so no text can make the database refuse a task's end (model/storable.ts).
 */
export async function finishTask(db: Db, taskId: string, outcome: Outcome): Promise<boolean> {
  const now = new Date();
  const kept = outcome.status === 'failed' && outcome.kept ? { files: storableJson(outcome.kept.files), expiresAt: outcome.kept.expiresAt } : {};
  const set =
    outcome.status === 'succeeded'
      ? { status: 'succeeded' as const, stage: null, files: storableJson(outcome.files), expiresAt: outcome.expiresAt }
      : { status: 'failed' as const, stage: null, errorCode: outcome.errorCode, errorMessage: storableText(outcome.errorMessage), ...kept };
  const rows = await db
    .update(tasks)
    .set({ ...set, finishedAt: now, updatedAt: now })
    .where(and(eq(tasks.id, taskId), inArray(tasks.status, [...RUNNABLE_STATUSES])))
    .returning({ id: tasks.id });
  return rows.length > 0;
}

/** How the reconciler ends a task whose run ended without recording it (reconcile.ts). */
export type LostRunEnd = { status: 'failed'; errorCode: TaskErrorCode; errorMessage: string } | { status: 'cancelled' };

/**
 * running → failed or cancelled, for the run `runs` only: a task retried meanwhile (a new run under
 * the same id) is left to that run. The row as it now is, or undefined when nothing matched.
 */
export async function endLostRun(db: Db, taskId: string, runs: number, end: LostRunEnd): Promise<TaskRow | undefined> {
  const now = new Date();
  const set = end.status === 'failed' ? { status: 'failed' as const, errorCode: end.errorCode, errorMessage: storableText(end.errorMessage) } : { status: 'cancelled' as const };
  const [row] = await db
    .update(tasks)
    .set({ ...set, stage: null, finishedAt: now, updatedAt: now })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'running'), eq(tasks.runs, runs)))
    .returning();
  return row;
}

/** queued, running or paused → cancelled (the API's cancel and the workflow's own cleanup both use it). */
export async function cancelActive(db: Db, taskId: string): Promise<TaskRow | undefined> {
  const now = new Date();
  const [row] = await db
    .update(tasks)
    .set({ status: 'cancelled', stage: null, finishedAt: now, updatedAt: now, admittedAt: null })
    .where(and(eq(tasks.id, taskId), inArray(tasks.status, [...ACTIVE_STATUSES])))
    .returning();
  return row;
}

/** failed or cancelled → queued as a new run: progress, files and error are reset, runs counts up. */
export async function resetForRetry(db: Db, taskId: string): Promise<TaskRow | undefined> {
  try {
    return await reset(db, taskId);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    throw new DomainError('task_duplicate_live', 'an identical task is already queued, running or paused; retry it once that one has ended, or submit again');
  }
}

/** What a task holds before a run has done anything: a new row, a preview, a retry's reset. */
export function noRunYet() {
  return { stage: null, totalRows: null, pagesTotal: null, lanes: {}, files: [], errorCode: null, errorMessage: null, startedAt: null, finishedAt: null, expiresAt: null };
}

async function reset(db: Db, taskId: string): Promise<TaskRow | undefined> {
  const [row] = await db
    .update(tasks)
    .set({
      status: 'queued',
      ...noRunYet(),
      runs: sql`${tasks.runs} + 1`,
      admittedAt: null,
      updatedAt: new Date(),
    })
    .where(and(eq(tasks.id, taskId), inArray(tasks.status, [...RETRYABLE_STATUSES])))
    .returning();
  return row;
}

/**
 * Tasks with files past their expiry, oldest first (by tasks_expires_idx, which holds only
 * succeeded and failed ones): succeeded tasks, and failed ones that kept their files (a failed delivery).
 */
export const dueForExpiryQuery = (db: Db, batch: number) =>
  db.select({ id: tasks.id }).from(tasks).where(and(sql`${tasks.status} in ('succeeded', 'failed')`, lt(tasks.expiresAt, new Date()))).orderBy(asc(tasks.expiresAt)).limit(batch);

export async function dueForExpiry(db: Db, batch: number): Promise<string[]> {
  return (await dueForExpiryQuery(db, batch)).map((r) => r.id);
}

/**
 * A batch whose files are gone (domain/tasks/expiry.ts): succeeded → expired, and a failed task
 * that kept its files (a failed delivery) stays failed and forgets them (and its expiry, so the
 * cleaner reads it no more). Statements by primary key, so they hold their rows' locks for
 * milliseconds. The ids of the tasks it changed.
 *
 * The commit does not wait for its WAL to reach the disk (synchronous_commit off, this transaction
 * only): its NOTIFYs make it hold Postgres's one notify-queue lock through its commit, and every
 * submission's commit takes that lock too, so a batch's fsync would be theirs to wait for. Losing
 * the mark in a crash loses nothing: the tasks are due again and the next batch marks them.
 */
export async function markBatchExpired(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const now = new Date();
  const rows = await db.transaction(async (tx) => {
    await tx.execute(sql`set local synchronous_commit = off`);
    const expired = await tx
      .update(tasks)
      .set({ status: 'expired', updatedAt: now })
      .where(and(inArray(tasks.id, ids), eq(tasks.status, 'succeeded')))
      .returning({ id: tasks.id });
    const forgotten = await tx
      .update(tasks)
      .set({ files: [], expiresAt: null, updatedAt: now })
      .where(and(inArray(tasks.id, ids), eq(tasks.status, 'failed')))
      .returning({ id: tasks.id });
    return [...expired, ...forgotten];
  });
  return rows.map((r) => r.id);
}

/** queued → paused (a waiting task gives up its place, and its slot if it had one). */
export async function pauseQueued(db: Db, taskId: string): Promise<TaskRow | undefined> {
  const [row] = await db
    .update(tasks)
    .set({ status: 'paused', admittedAt: null, updatedAt: new Date() })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'queued')))
    .returning();
  return row;
}

/** running → paused: the run stopped fetching; its staged pieces stay for the resume. */
export async function pauseRunning(db: Db, taskId: string): Promise<boolean> {
  const rows = await db
    .update(tasks)
    .set({ status: 'paused', stage: null, updatedAt: new Date() })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'running')))
    .returning({ id: tasks.id });
  return rows.length > 0;
}

/** paused → queued: back in its project's queue, in its original place (priority, then submission). */
export async function resumePaused(db: Db, taskId: string): Promise<TaskRow | undefined> {
  const [row] = await db
    .update(tasks)
    .set({ status: 'queued', admittedAt: null, updatedAt: new Date() })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'paused')))
    .returning();
  return row;
}

/** Postgres's unique_violation, from postgres.js or PGlite (drizzle may wrap it in `cause`). */
export function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) if (e.code === '23505') return true;
  return false;
}
