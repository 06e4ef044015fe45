// What a crash can leave behind: a task admitted whose run never started (its admitter died with
// the start in hand), and a project with free slots and waiting tasks nobody dispatched. The sweep
// takes only starts whose claim lapsed (claim.ts), so a start still in a live starter's hands, in
// this process or another, is never made twice. Run by a Temporal Schedule every minute and by the
// workers' queue watcher (watch.ts).
import { and, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../../db/client.js';
import { tasks } from '../../../db/schema.js';
import { type AdmissionDeps, dispatch, rowsInOrder, startAll } from './admit.js';
import { claimMs } from './claim.js';

/** Admitted tasks whose start claim lapsed, now claimed by the caller (one caller wins each). */
async function claimLapsed(db: Db, projectId: string | null) {
  const ids = rowsOf<{ id: string }>(await db.execute(sql`select dc_claim_lapsed_starts(${projectId}::text, ${claimMs()}) as id`)).map((r) => r.id);
  return rowsInOrder(db, ids);
}

/** Admitted tasks of the project whose run has not begun: someone holds or will sweep their start. */
async function startsPending(db: Db, projectId: string): Promise<number> {
  const rows = await db
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.status, 'queued'), isNotNull(tasks.admittedAt)));
  return rows.length;
}

/** One project's share of the sweep; `pending`: starts still claimed by others, to look at again. */
export async function sweepProject(deps: AdmissionDeps, projectId: string): Promise<{ started: number; pending: number }> {
  const restarted = (await startAll(deps, await claimLapsed(deps.db, projectId))).started.length;
  const started = restarted + (await dispatch(deps, projectId)).started.length;
  return { started, pending: await startsPending(deps.db, projectId) };
}

export async function sweep(deps: AdmissionDeps): Promise<{ started: number }> {
  let started = (await startAll(deps, await claimLapsed(deps.db, null))).started.length;
  const waiting = await deps.db.selectDistinct({ projectId: tasks.projectId }).from(tasks).where(and(eq(tasks.status, 'queued'), isNull(tasks.admittedAt)));
  for (const { projectId } of waiting) started += (await dispatch(deps, projectId)).started.length;
  return { started };
}
