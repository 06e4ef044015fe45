// Admission (docs/adr/0012-admission-queue.md, docs/adr/0022-admission-one-owner.md): a project's
// tasks wait as rows in Postgres and their runs are started only when a slot is free, in queue
// order. Waiting costs nothing: no workflow, no timer, no poll. Whoever frees or fills a slot (a
// submission, a run ending or pausing, a cancel, a retry, a resume, a setting) calls dispatch.
// Which tasks hold a slot, the lock and the queue order are dc_admit_next's (db/functions/dc_admit_next.sql).
import type { Client } from '@temporalio/client';
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../../db/client.js';
import { type TaskRow, tasks } from '../../../db/schema.js';
import { claimMs } from './claim.js';
import { type RunDeps, type RunProject, startRun } from './run.js';

export interface AdmissionDeps extends RunDeps {
  db: Db;
}

export interface Started {
  started: string[];
  /** Tasks whose run Temporal refused: each gave its slot back and waits in its queue again. */
  failed: Map<string, Error>;
}

/** The rows of `ids`, in that order (the order the database function chose). */
export async function rowsInOrder(db: Db, ids: string[]): Promise<TaskRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.select().from(tasks).where(inArray(tasks.id, ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Reserves the project's free slots for its next waiting tasks; their starts are the caller's. */
async function admitNext(db: Db, projectId: string): Promise<TaskRow[]> {
  const ids = rowsOf<{ id: string }>(await db.execute(sql`select dc_admit_next(${projectId}, ${claimMs()}) as id`)).map((r) => r.id);
  return rowsInOrder(db, ids);
}

/** An admitted task whose run could not start gives its slot (and its claim) back. */
async function withdraw(db: Db, taskId: string): Promise<void> {
  await db
    .update(tasks)
    .set({ admittedAt: null, startClaimedUntil: null })
    .where(and(eq(tasks.id, taskId), eq(tasks.status, 'queued'), isNotNull(tasks.admittedAt)));
}

/** Starts the runs of admitted tasks whose starts the caller claimed, in order. */
export async function startAll(deps: AdmissionDeps, admitted: TaskRow[], project?: RunProject, eager?: Client): Promise<Started> {
  const started: string[] = [];
  const failed = new Map<string, Error>();
  for (const task of admitted) {
    try {
      await startRun(deps, task, project, eager);
      started.push(task.id);
    } catch (err) {
      failed.set(task.id, err as Error);
      await withdraw(deps.db, task.id);
    }
  }
  return { started, failed };
}

/** Admits and starts as many of the project's waiting tasks as it has free slots. */
export async function dispatch(deps: AdmissionDeps, projectId: string): Promise<Started> {
  return startAll(deps, await admitNext(deps.db, projectId));
}
