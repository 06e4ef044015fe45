// Counting tasks by status. With no filter, or only the project (and the status), the answer is
// read from task_counts, which the database keeps exact as tasks change (db/functions/dc_task_counts_apply.sql,
// docs/adr/0028-kept-task-counts.md): a few rows whatever the history. Any other filter (operator,
// schedule, stage, creation window) counts the matching rows, bounded by the indexes of that filter.
import { and, count, eq, gt, sum, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { taskCounts, tasks } from '../../db/schema.js';
import { TASK_STATUSES, type TaskStatus } from '../../model/task.js';
import { type AdminTaskFilter, type TaskFilter, taskWhere } from './queries.js';

type Counts = Record<TaskStatus, number>;

const zeros = (): Counts => Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Counts;

/** Filters the kept counts can answer: the rest need the rows themselves. */
const kept = (q: AdminTaskFilter): boolean =>
  !q.operator_id && !q.task_id && !q.schedule_id && !q.stage && !q.created_after && !q.created_before;

async function keptCounts(db: Db, q: AdminTaskFilter): Promise<Counts> {
  const w: SQL[] = [];
  if (q.project_id) w.push(eq(taskCounts.projectId, q.project_id));
  if (q.status) w.push(eq(taskCounts.status, q.status));
  // sum() of integers is a bigint, which the drivers hand over as a string.
  const rows = await db.select({ status: taskCounts.status, n: sum(taskCounts.n).mapWith(Number) }).from(taskCounts).where(and(...w)).groupBy(taskCounts.status);
  const counts = zeros();
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

async function countedRows(db: Db, q: AdminTaskFilter): Promise<Counts> {
  const rows = await db.select({ status: tasks.status, n: count() }).from(tasks).where(and(...taskWhere(q))).groupBy(tasks.status);
  const counts = zeros();
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

const countBy = (db: Db, q: AdminTaskFilter): Promise<Counts> => (kept(q) ? keptCounts(db, q) : countedRows(db, q));

/** One project's tasks (the project comes from the caller's key, never from the query). */
export const countTasks = (db: Db, projectId: string, q: TaskFilter) => countBy(db, { ...q, project_id: projectId });

/** Across projects, for operators (the admin token). */
export const countAllTasks = (db: Db, q: AdminTaskFilter) => countBy(db, q);

/** For the dc_tasks and dc_tasks_queued gauges: every task by status, and the queued ones per project. */
export async function taskGauges(db: Db): Promise<{ byStatus: Record<string, number>; queuedByProject: Record<string, number> }> {
  const byStatus = await keptCounts(db, {});
  const rows = await db
    .select({ projectId: taskCounts.projectId, n: taskCounts.n })
    .from(taskCounts)
    .where(and(eq(taskCounts.status, 'queued'), gt(taskCounts.n, 0)));
  return { byStatus, queuedByProject: Object.fromEntries(rows.map((r) => [r.projectId, r.n])) };
}
