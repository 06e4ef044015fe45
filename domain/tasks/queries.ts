// Reading tasks: one task, and a project's tasks filtered, paged and counted.
import { and, count, desc, eq, gte, lt, or, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type TaskRow, tasks } from '../../db/schema.js';
import { TASK_STATUSES, type TaskStage, type TaskStatus } from '../../model/task.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { DomainError } from '../errors.js';

export async function getTask(db: Db, taskId: string): Promise<TaskRow | undefined> {
  const [row] = await db.select().from(tasks).where(eq(tasks.id, taskId));
  return row;
}

export async function requireTask(db: Db, taskId: string): Promise<TaskRow> {
  const row = await getTask(db, taskId);
  if (!row) throw DomainError.notFound(`task ${taskId}`);
  return row;
}

/** Whether the task was cancelled (a stopping run need not keep what it has in hand). */
export async function taskCancelled(db: Db, taskId: string): Promise<boolean> {
  const [row] = await db.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, taskId));
  return row?.status === 'cancelled';
}

/** A task of the given project, or not_found — another project's task looks exactly like a missing one. */
export async function ownedTask(db: Db, projectId: string, taskId: string): Promise<TaskRow> {
  const task = await getTask(db, taskId);
  if (!task || task.projectId !== projectId) throw DomainError.notFound('task');
  return task;
}

export interface TaskFilter {
  operator_id?: string | undefined;
  /** The runs of one schedule. */
  schedule_id?: string | undefined;
  status?: TaskStatus | undefined;
  /** Inclusive. */
  created_after?: Date | undefined;
  /** Exclusive. */
  created_before?: Date | undefined;
}

/** The operators' filter (GET /v1/admin/tasks): across projects, or one, and by stage too. */
export interface AdminTaskFilter extends TaskFilter {
  project_id?: string | undefined;
  stage?: TaskStage | undefined;
}

type Page = { limit: number; cursor?: string | undefined };

function where(q: AdminTaskFilter): SQL[] {
  const w: SQL[] = [];
  if (q.project_id) w.push(eq(tasks.projectId, q.project_id));
  if (q.operator_id) w.push(eq(tasks.operatorId, q.operator_id));
  if (q.schedule_id) w.push(eq(tasks.scheduleId, q.schedule_id));
  if (q.status) w.push(eq(tasks.status, q.status));
  if (q.stage) w.push(eq(tasks.stage, q.stage));
  if (q.created_after) w.push(gte(tasks.createdAt, q.created_after));
  if (q.created_before) w.push(lt(tasks.createdAt, q.created_before));
  return w;
}



/** Newest first, `limit` at a time; next_cursor continues after the last one. */
async function list(db: Db, q: AdminTaskFilter & Page): Promise<{ items: TaskRow[]; nextCursor: string | null }> {
  const w = where(q);
  if (q.cursor) {
    const [at, id] = decodeCursor(q.cursor);
    w.push(or(lt(tasks.createdAt, at), and(eq(tasks.createdAt, at), lt(tasks.id, id)))!);
  }
  const rows = await db.select().from(tasks).where(and(...w)).orderBy(desc(tasks.createdAt), desc(tasks.id)).limit(q.limit + 1);
  const items = rows.slice(0, q.limit);
  return { items, nextCursor: rows.length > q.limit ? encodeCursor(items[items.length - 1]!) : null };
}

async function countBy(db: Db, q: AdminTaskFilter): Promise<Record<TaskStatus, number>> {
  const rows = await db.select({ status: tasks.status, n: count() }).from(tasks).where(and(...where(q))).groupBy(tasks.status);
  const counts = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

/** One project's tasks (the project comes from the caller's key, never from the query). */
export const listTasks = (db: Db, projectId: string, q: TaskFilter & Page) => list(db, { ...q, project_id: projectId });
export const countTasks = (db: Db, projectId: string, q: TaskFilter) => countBy(db, { ...q, project_id: projectId });

/** Across projects, for operators (the admin token). */
export const listAllTasks = (db: Db, q: AdminTaskFilter & Page) => list(db, q);
export const countAllTasks = (db: Db, q: AdminTaskFilter) => countBy(db, q);

/** For the dc_tasks and dc_tasks_queued gauges: every task by status, and the queued ones per project. */
export async function taskGauges(db: Db): Promise<{ byStatus: Record<string, number>; queuedByProject: Record<string, number> }> {
  const byStatus = await countBy(db, {});
  const rows = await db.select({ projectId: tasks.projectId, n: count() }).from(tasks).where(eq(tasks.status, 'queued')).groupBy(tasks.projectId);
  return { byStatus, queuedByProject: Object.fromEntries(rows.map((r) => [r.projectId, r.n])) };
}
