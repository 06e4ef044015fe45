// Admission (docs/adr/0012-admission-queue.md): a project's tasks wait as rows in Postgres and
// their workflows are started only when a slot is free, in order of priority (1 first), then
// submission. Waiting costs nothing: no workflow, no timer, no poll. Whoever frees or fills a slot
// (a submission, a run ending or pausing, a cancel, a resume) calls dispatch(project); a sweep run
// by a Temporal Schedule catches what a crash left between two steps.
import type { Client } from '@temporalio/client';
import { and, asc, count, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { projects, type TaskRow, tasks } from '../../db/schema.js';
import { startOwedHere } from './owed-starts.js';
import { type RunDeps, type RunProject, startRun } from './run.js';

export interface AdmissionDeps extends RunDeps {
  db: Db;
}

/** An admitted task whose run has not started after this long is started again (idempotently). */
export const STALE_ADMISSION_MS = 10_000;

/** One admitter per project at a time, across API and worker processes (held until the transaction ends). */
export async function lockAdmission(tx: Db, projectId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`admit:${projectId}`}))`);
}

/** Reserves the project's free slots for its next waiting tasks, in queue order. */
async function reserve(db: Db, projectId: string): Promise<TaskRow[]> {
  return db.transaction(async (tx) => {
    await lockAdmission(tx, projectId);
    const [project] = await tx.select({ max: projects.maxRunningTasks }).from(projects).where(eq(projects.id, projectId));
    if (!project) return [];
    const holding = or(eq(tasks.status, 'running'), and(eq(tasks.status, 'queued'), isNotNull(tasks.admittedAt)));
    const [held] = await tx.select({ n: count() }).from(tasks).where(and(eq(tasks.projectId, projectId), holding));
    const free = project.max - (held?.n ?? 0);
    if (free <= 0) return [];
    const next = await tx
      .select()
      .from(tasks)
      .where(and(eq(tasks.projectId, projectId), eq(tasks.status, 'queued'), isNull(tasks.admittedAt)))
      .orderBy(asc(tasks.priority), asc(tasks.createdAt), asc(tasks.id))
      .limit(free);
    const now = new Date();
    for (const t of next) await tx.update(tasks).set({ admittedAt: now }).where(eq(tasks.id, t.id));
    return next.map((t) => ({ ...t, admittedAt: now }));
  });
}

/** Starts the runs of admitted tasks; a task whose start failed gives its slot back and waits again. */
export async function startAll(deps: AdmissionDeps, admitted: TaskRow[], project?: RunProject, eager?: Client): Promise<{ started: string[]; failed: Map<string, Error> }> {
  const started: string[] = [];
  const failed = new Map<string, Error>();
  for (const task of admitted) {
    try {
      await startRun(deps, task, project, eager);
      started.push(task.id);
    } catch (err) {
      failed.set(task.id, err as Error);
      await deps.db.update(tasks).set({ admittedAt: null }).where(and(eq(tasks.id, task.id), eq(tasks.status, 'queued')));
    }
  }
  return { started, failed };
}

/** Admits and starts as many of the project's waiting tasks as it has free slots. */
export async function dispatch(deps: AdmissionDeps, projectId: string): Promise<{ started: string[]; failed: Map<string, Error> }> {
  return startAll(deps, await reserve(deps.db, projectId));
}

/**
 * Admitted tasks whose run has not started for a while: started again (the start is idempotent),
 * except those a starter of this process still has in hand (owed-starts.ts).
 */
async function staleAdmitted(db: Db, projectId?: string): Promise<TaskRow[]> {
  const old = lt(tasks.admittedAt, new Date(Date.now() - STALE_ADMISSION_MS));
  const rows = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.status, 'queued'), old, projectId ? eq(tasks.projectId, projectId) : undefined));
  return rows.filter((t) => !startOwedHere(t.id));
}

/** One project's share of the sweep. */
export async function sweepProject(deps: AdmissionDeps, projectId: string): Promise<{ started: number }> {
  const restarted = (await startAll(deps, await staleAdmitted(deps.db, projectId))).started.length;
  return { started: restarted + (await dispatch(deps, projectId)).started.length };
}

/**
 * What a crash can leave behind: a task admitted whose run never started, and a project with free
 * slots and waiting tasks nobody dispatched. Run by a Temporal Schedule every minute.
 */
export async function sweep(deps: AdmissionDeps): Promise<{ started: number }> {
  let started = (await startAll(deps, await staleAdmitted(deps.db))).started.length;
  const waiting = await deps.db.selectDistinct({ projectId: tasks.projectId }).from(tasks).where(and(eq(tasks.status, 'queued'), isNull(tasks.admittedAt)));
  for (const { projectId } of waiting) started += (await dispatch(deps, projectId)).started.length;
  return { started };
}
