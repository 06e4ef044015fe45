// The task row's state machine: every change of status or stage, and the progress the workflow
// reports, goes through this module. Each change is one conditional UPDATE, so two writers (the
// API cancelling, the workflow finishing) cannot both win, and a cancelled task is never revived.
import { and, asc, count, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { projects, type TaskRow, tasks } from '../../db/schema.js';
import { ACTIVE_STATUSES, type LaneProgress, RETRYABLE_STATUSES, type StoredFile, type TaskStage } from '../../model/task.js';
import { requireTask } from './queries.js';

type NewTask = Omit<typeof tasks.$inferInsert, 'status' | 'stage'>;

/** A new task, `queued`; undefined when a task with its Idempotency-Key already exists. */
export async function insertQueued(db: Db, values: NewTask): Promise<TaskRow | undefined> {
  const [row] = await db
    .insert(tasks)
    .values({ ...values, status: 'queued' })
    .onConflictDoNothing()
    .returning();
  return row;
}

/** Removes a task whose workflow could not be started (nothing ran, nothing was stored). */
export async function deleteUnstarted(db: Db, taskId: string): Promise<void> {
  await db.delete(tasks).where(and(eq(tasks.id, taskId), eq(tasks.status, 'queued')));
}

export type Admission = 'admitted' | 'not_queued' | 'no_slot';

/** queued → running when the project has a free slot (max_running_tasks). */
export async function admit(db: Db, taskId: string): Promise<{ admission: Admission; limit?: number }> {
  return db.transaction(async (tx) => {
    const task = await requireTask(tx, taskId);
    if (task.status === 'running') return { admission: 'admitted' };
    if (task.status !== 'queued') return { admission: 'not_queued' };
    // Serialises slot counting per project across API and worker processes.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${task.projectId}))`);
    const [project] = await tx.select({ max: projects.maxRunningTasks }).from(projects).where(eq(projects.id, task.projectId));
    const [running] = await tx
      .select({ n: count() })
      .from(tasks)
      .where(and(eq(tasks.projectId, task.projectId), eq(tasks.status, 'running')));
    if (project && (running?.n ?? 0) >= project.max) return { admission: 'no_slot', limit: project.max };
    const now = new Date();
    await tx
      .update(tasks)
      .set({ status: 'running', stage: 'probing', startedAt: now, updatedAt: now, lanes: {}, files: [] })
      .where(and(eq(tasks.id, taskId), eq(tasks.status, 'queued')));
    return { admission: 'admitted' };
  });
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

export async function setLaneProgress(db: Db, taskId: string, lane: number, progress: LaneProgress[string]): Promise<void> {
  // jsonb_set touches only this lane's key, so parallel lanes never overwrite each other.
  await db
    .update(tasks)
    .set({
      lanes: sql`jsonb_set(${tasks.lanes}, ${`{${lane}}`}::text[], ${JSON.stringify(progress)}::jsonb)`,
      updatedAt: new Date(),
    })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'running')));
}

export type Outcome = { status: 'succeeded'; files: StoredFile[]; expiresAt: Date } | { status: 'failed'; errorCode: string; errorMessage: string };

/** queued or running → succeeded or failed; false when the task had already ended (cancelled). */
export async function finishTask(db: Db, taskId: string, outcome: Outcome): Promise<boolean> {
  const now = new Date();
  const set =
    outcome.status === 'succeeded'
      ? { status: 'succeeded' as const, stage: null, files: outcome.files, expiresAt: outcome.expiresAt }
      : { status: 'failed' as const, stage: null, errorCode: outcome.errorCode, errorMessage: outcome.errorMessage };
  const rows = await db
    .update(tasks)
    .set({ ...set, finishedAt: now, updatedAt: now })
    .where(and(eq(tasks.id, taskId), inArray(tasks.status, [...ACTIVE_STATUSES])))
    .returning({ id: tasks.id });
  return rows.length > 0;
}

/** queued or running → cancelled (the API's cancel and the workflow's own cleanup both use it). */
export async function cancelActive(db: Db, taskId: string): Promise<TaskRow | undefined> {
  const now = new Date();
  const [row] = await db
    .update(tasks)
    .set({ status: 'cancelled', stage: null, finishedAt: now, updatedAt: now })
    .where(and(eq(tasks.id, taskId), inArray(tasks.status, [...ACTIVE_STATUSES])))
    .returning();
  return row;
}

/** failed or cancelled → queued as a new run: progress, files and error are reset, runs counts up. */
export async function resetForRetry(db: Db, taskId: string): Promise<TaskRow | undefined> {
  const [row] = await db
    .update(tasks)
    .set({
      status: 'queued',
      stage: null,
      totalRows: null,
      pagesTotal: null,
      lanes: {},
      files: [],
      errorCode: null,
      errorMessage: null,
      startedAt: null,
      finishedAt: null,
      expiresAt: null,
      runs: sql`${tasks.runs} + 1`,
      updatedAt: new Date(),
    })
    .where(and(eq(tasks.id, taskId), inArray(tasks.status, [...RETRYABLE_STATUSES])))
    .returning();
  return row;
}

/** Succeeded tasks past their expiry, oldest first. */
export async function dueForExpiry(db: Db, batch: number): Promise<string[]> {
  const rows = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.status, 'succeeded'), lt(tasks.expiresAt, new Date())))
    .orderBy(asc(tasks.expiresAt))
    .limit(batch);
  return rows.map((r) => r.id);
}

/** succeeded → expired: marked before its files go, so a link served meanwhile answers 410. */
export async function markExpired(db: Db, taskId: string): Promise<void> {
  await db
    .update(tasks)
    .set({ status: 'expired', updatedAt: new Date() })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'succeeded')));
}
