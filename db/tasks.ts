// Task-row queries shared by the API and the activities.
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { type LaneProgress, type StoredFile, type TaskRow, tasks } from './schema.js';

export const ACTIVE_STATUSES = ['queued', 'running'] as const;
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled', 'expired'] as const;
export type TaskStatus = (typeof ACTIVE_STATUSES)[number] | (typeof TERMINAL_STATUSES)[number];
export type TaskStage = 'probing' | 'fetching' | 'rendering' | 'uploading' | 'notifying';

export async function getTask(db: Db, taskId: string): Promise<TaskRow | undefined> {
  const [row] = await db.select().from(tasks).where(eq(tasks.id, taskId));
  return row;
}

export async function requireTask(db: Db, taskId: string): Promise<TaskRow> {
  const row = await getTask(db, taskId);
  if (!row) throw new Error(`task ${taskId} not found`);
  return row;
}

/** Updates a task that is still running; a task cancelled meanwhile is left as it is. */
export async function updateRunning(db: Db, taskId: string, set: Partial<typeof tasks.$inferInsert>): Promise<boolean> {
  const rows = await db
    .update(tasks)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'running')))
    .returning({ id: tasks.id });
  return rows.length > 0;
}

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

export async function finishTask(
  db: Db,
  taskId: string,
  outcome:
    | { status: 'succeeded'; files: StoredFile[]; expiresAt: Date }
    | { status: 'failed'; errorCode: string; errorMessage: string },
): Promise<boolean> {
  const now = new Date();
  const set =
    outcome.status === 'succeeded'
      ? { status: 'succeeded', stage: null, files: outcome.files, expiresAt: outcome.expiresAt }
      : { status: 'failed', stage: null, errorCode: outcome.errorCode, errorMessage: outcome.errorMessage };
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

export const RETRYABLE_STATUSES = ['failed', 'cancelled'] as const;

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
