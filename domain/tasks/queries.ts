// Reading tasks: one task, and a project's tasks filtered and paged (counted: counts.ts).
import { and, eq, gte, lt, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type TaskRow, tasks } from '../../db/schema.js';
import type { TaskStage, TaskStatus } from '../../model/task.js';
import { encodeCursor, newestFirst, olderThan } from '../cursor.js';
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
  /** One task (an operator session made for one task: docs/notifications.md#5-e-mail). */
  task_id?: string | undefined;
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

/** The conditions of a filter (the list here, the counts that need the rows in counts.ts). */
export function taskWhere(q: AdminTaskFilter): SQL[] {
  const w: SQL[] = [];
  if (q.project_id) w.push(eq(tasks.projectId, q.project_id));
  if (q.operator_id) w.push(eq(tasks.operatorId, q.operator_id));
  if (q.task_id) w.push(eq(tasks.id, q.task_id));
  if (q.schedule_id) w.push(eq(tasks.scheduleId, q.schedule_id));
  if (q.status) w.push(eq(tasks.status, q.status));
  if (q.stage) w.push(eq(tasks.stage, q.stage));
  if (q.created_after) w.push(gte(tasks.createdAt, q.created_after));
  if (q.created_before) w.push(lt(tasks.createdAt, q.created_before));
  return w;
}

/**
 * The query of one page, newest first: each filter the API accepts has an index whose leading
 * columns are its equalities followed by (created_at, id), so a page reads about `limit` rows at
 * any depth (db/migrations/0000_baseline.sql; test/e2e/list-plans.test.ts checks the plans).
 */
export function pageQuery(db: Db, q: AdminTaskFilter & Page) {
  const w = taskWhere(q);
  if (q.cursor) w.push(olderThan(tasks.createdAt, tasks.id, q.cursor));
  return db.select().from(tasks).where(and(...w)).orderBy(...newestFirst(tasks.createdAt, tasks.id)).limit(q.limit + 1);
}

/** Newest first, `limit` at a time; next_cursor continues after the last one. */
async function list(db: Db, q: AdminTaskFilter & Page): Promise<{ items: TaskRow[]; nextCursor: string | null }> {
  const rows = await pageQuery(db, q);
  const items = rows.slice(0, q.limit);
  return { items, nextCursor: rows.length > q.limit ? encodeCursor(items[items.length - 1]!) : null };
}

/** One project's tasks (the project comes from the caller's key, never from the query). */
export const listTasks = (db: Db, projectId: string, q: TaskFilter & Page) => list(db, { ...q, project_id: projectId });

/** Across projects, for operators (the admin token). */
export const listAllTasks = (db: Db, q: AdminTaskFilter & Page) => list(db, q);

