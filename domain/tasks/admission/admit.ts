// The queue's statements (docs/adr/0012-admission-queue.md, docs/adr/0022-admission-one-owner.md): a
// project's tasks wait as rows in Postgres and their runs are started only when a slot is free, in
// queue order. Waiting costs nothing: no workflow, no timer, no poll. Which tasks hold a slot, the
// lock, the queue order and the start claims are database functions
// (db/functions/); these only call them and read their answers.
import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../../db/client.js';
import { type TaskRow, tasks } from '../../../db/schema.js';
import { claimMs } from './claim.js';

/** The rows of `ids`, in that order (the order the database function chose). */
async function rowsInOrder(db: Db, ids: string[]): Promise<TaskRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.select().from(tasks).where(inArray(tasks.id, ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

const idsOf = (result: unknown) => rowsOf<{ id: string }>(result).map((r) => r.id);

/** Reserves the project's free slots for its next waiting tasks; their starts are the caller's. */
export async function admitNext(db: Db, projectId: string): Promise<TaskRow[]> {
  return rowsInOrder(db, idsOf(await db.execute(sql`select dc_admit_next(${projectId}, ${claimMs()}) as id`)));
}

/** Admitted tasks whose start claim lapsed, now claimed by the caller (one caller wins each). */
export async function claimLapsed(db: Db, projectId: string | null): Promise<TaskRow[]> {
  return rowsInOrder(db, idsOf(await db.execute(sql`select dc_claim_lapsed_starts(${projectId}::text, ${claimMs()}) as id`)));
}

/** An admitted task whose run could not start gives its slot (and its claim) back. */
export async function withdraw(db: Db, taskId: string): Promise<void> {
  await db
    .update(tasks)
    .set({ admittedAt: null, startClaimedUntil: null })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'queued'), isNotNull(tasks.admittedAt)));
}

/** Admitted tasks of the project whose run has not begun: someone holds or will sweep their start. */
export async function startsPending(db: Db, projectId: string): Promise<number> {
  const rows = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.status, 'queued'), isNotNull(tasks.admittedAt)));
  return rows.length;
}

/** The projects with tasks waiting for a slot. */
export async function projectsWaiting(db: Db): Promise<string[]> {
  const rows = await db.selectDistinct({ projectId: tasks.projectId }).from(tasks).where(and(eq(tasks.status, 'queued'), isNull(tasks.admittedAt)));
  return rows.map((r) => r.projectId);
}
