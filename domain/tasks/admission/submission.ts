// A submission's run, once the acceptance has recorded its task (accept.ts): the three ways a
// submission starts one. The API starts it after its answer (starter.ts); a sync export starts its
// own sync run; a schedule's run waits for the start, and a start Temporal refuses removes the task.
import type { Client } from '@temporalio/client';
import type { ProjectRow, TaskRow } from '../../../db/schema.js';
import { DomainError } from '../../errors.js';
import { deleteUnstarted } from '../status.js';
import { type AdmissionDeps, dispatch, startAll } from './admit.js';
import { startSyncRun } from './run.js';
import type { RunStarter } from './starter.js';

/** How a submission's run starts, set by who submits (the API's routes, a schedule's run). */
export interface SubmitOrigin {
  scheduleId?: string | undefined;
  /**
   * POST /v1/tasks/sync with a sync slot held: the task is admitted when its project has a free
   * slot (it does not wait behind queued tasks) and its run is the sync export (startSyncRun;
   * `eager` as there). Without a free slot it is recorded queued, an ordinary export, and the
   * caller is answered 202 (docs/adr/0017-lean-sync-exports.md).
   */
  sync?: { eager?: Client | undefined; inserted?: () => void; started?: (eagerly: boolean) => void };
  /**
   * The API's starter: the run starts after the answer (starter.ts, ADR 0020). Without it (a
   * schedule's run) the submission waits for the start, and a start Temporal refuses removes it.
   */
  starter?: RunStarter | undefined;
}

/**
 * Starts the run of a task just recorded: its own when it was recorded admitted, or the project's
 * dispatch when others wait beside free slots (`mustDispatch`).
 */
export async function startSubmitted(deps: AdmissionDeps, project: ProjectRow, task: TaskRow, mustDispatch: boolean, origin: SubmitOrigin): Promise<void> {
  if (origin.sync && task.admittedAt) return startSyncOrRemove(deps, project, task, origin.sync);
  if (!origin.starter) return admitOrRemove(deps, project, task, mustDispatch);
  if (task.admittedAt) origin.starter.start(task, project);
  else if (mustDispatch) origin.starter.dispatch(project.id);
}

/**
 * When Temporal cannot take the new task's run, the task is removed and the caller told (nothing
 * ran, nothing was stored); a crash here leaves the task queued or admitted with a claim that
 * lapses, and the workers' watcher or the sweep starts it (watch.ts, sweep.ts).
 */
async function admitOrRemove(deps: AdmissionDeps, project: ProjectRow, task: TaskRow, mustDispatch: boolean): Promise<void> {
  const { failed } = task.admittedAt ? await startAll(deps, [task], project) : mustDispatch ? await dispatch(deps, task.projectId) : { failed: new Map<string, Error>() };
  const err = failed.get(task.id);
  if (!err) return;
  await deleteUnstarted(deps.db, task.id);
  throw new DomainError('temporal_unavailable', `the task could not be scheduled: ${err.message}`);
}

async function startSyncOrRemove(deps: AdmissionDeps, project: ProjectRow, task: TaskRow, sync: NonNullable<SubmitOrigin['sync']>): Promise<void> {
  sync.inserted?.();
  try {
    const { eagerlyStarted } = await startSyncRun(deps, task, sync.eager, project);
    sync.started?.(eagerlyStarted);
  } catch (err) {
    await deleteUnstarted(deps.db, task.id);
    throw new DomainError('temporal_unavailable', `the task could not be scheduled: ${(err as Error).message}`);
  }
}
