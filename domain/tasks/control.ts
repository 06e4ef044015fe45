// Cancel, retry, pause and resume (docs/api.md#tasks). The row changes first, conditionally, so two
// callers cannot both win; Temporal is told second. A run never revives a cancelled or paused row
// (status.ts). Every change that frees or fills a slot dispatches the project's queue.
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { TaskRow } from '../../db/schema.js';
import { RETRYABLE_STATUSES } from '../../model/task.js';
import { logger } from '../../platform/logger.js';
import { pauseUpdate } from '../../workflows/pause.js';
import { DomainError } from '../errors.js';
import { Admission } from './admission/index.js';
import { getProject } from '../projects/projects.js';
import { getTask } from './queries.js';
import { cancelActive, finishTask, pauseQueued, resetForRetry, resumePaused } from './status.js';
import { checkQuota } from '../usage/quota.js';
import { checkTaskSources, type SubmitDeps } from './submit.js';

// A stopping run cleans up (stops its fetches, removes or keeps staged data) before it closes; a
// retry or resume waits this long for that before it asks the caller to try again.
const PREVIOUS_RUN_WAIT_MS = 15_000;

export async function cancelTask(deps: SubmitDeps, task: TaskRow): Promise<TaskRow> {
  const row = await cancelActive(deps.db, task.id);
  if (!row) throw new DomainError('task_finished', `the task is already ${task.status}; only a queued, running or paused task can be cancelled`);
  try {
    // The workflow's activities see the cancellation at their next heartbeat (about a second).
    await deps.temporal.workflow.getHandle(task.id).cancel();
  } catch (err) {
    // Not found: no run (still waiting, or paused). Otherwise the run still sees the cancelled
    // row at its next step and discards what it made (workflows/export.ts).
    if (!(err instanceof WorkflowNotFoundError)) logger('control', { task_id: task.id }).error({ err }, 'cancelling the run failed');
  }
  await new Admission(deps).dispatch(task.projectId);
  return row;
}

export async function retryTask(deps: SubmitDeps, task: TaskRow): Promise<TaskRow> {
  if (!(RETRYABLE_STATUSES as readonly string[]).includes(task.status)) {
    throw new DomainError('task_not_retryable', `the task is ${task.status}; only a failed or cancelled task can be retried`);
  }
  await sourcesStillAllowed(deps, task);
  // A retry runs the export again: a quota reached refuses it as it refuses a submission.
  await checkQuota(deps.db, task.projectId);
  await previousRunClosed(deps, task.id);
  const row = await resetForRetry(deps.db, task.id);
  if (!row) throw new DomainError('task_not_retryable', 'the task changed meanwhile; fetch it and try again');
  const { failed } = await new Admission(deps).dispatch(row.projectId);
  const err = failed.get(row.id);
  if (err) {
    const message = `the retry could not be scheduled: ${err.message}`;
    await finishTask(deps.db, row.id, { status: 'failed', errorCode: 'internal_error', errorMessage: message });
    throw new DomainError('temporal_unavailable', message);
  }
  return (await getTask(deps.db, row.id)) ?? row;
}

/** queued → paused at once; running → the run stops after the pages in flight and marks it paused. */
export async function pauseTask(deps: SubmitDeps, task: TaskRow): Promise<TaskRow> {
  const waiting = await pauseQueued(deps.db, task.id);
  if (waiting) {
    await new Admission(deps).dispatch(task.projectId);
    return waiting;
  }
  if (task.status !== 'running') throw new DomainError('task_not_pausable', `the task is ${task.status}; only a queued or running task can be paused`);
  try {
    await deps.temporal.workflow.getHandle(task.id).executeUpdate(pauseUpdate);
  } catch (err) {
    // The validator's refusal (rendering already), a run that ended meanwhile, or a run started
    // by a version without pause: all say this task cannot be paused now.
    if (!(err instanceof WorkflowUpdateFailedError || err instanceof WorkflowNotFoundError)) throw err;
    const reason = err instanceof WorkflowUpdateFailedError ? (err.cause?.message ?? err.message) : 'its run has ended';
    throw new DomainError('task_not_pausable', `the task cannot be paused now: ${reason}`);
  }
  return (await getTask(deps.db, task.id)) ?? task;
}

/** paused → queued in its old place; its next run continues from the staged pages. */
export async function resumeTask(deps: SubmitDeps, task: TaskRow): Promise<TaskRow> {
  if (task.status !== 'paused') throw new DomainError('task_not_paused', `the task is ${task.status}; only a paused task can be resumed`);
  await sourcesStillAllowed(deps, task);
  // The paused run marks the row before it closes: a new run must not attach to it (USE_EXISTING).
  await previousRunClosed(deps, task.id);
  const row = await resumePaused(deps.db, task.id);
  if (!row) throw new DomainError('task_not_paused', 'the task changed meanwhile; fetch it and try again');
  await new Admission(deps).dispatch(row.projectId);
  return (await getTask(deps.db, row.id)) ?? row;
}

/** A retry or resume asks the source again: the project's list as it is now decides. */
async function sourcesStillAllowed(deps: SubmitDeps, task: TaskRow): Promise<void> {
  const project = await getProject(deps.db, task.projectId);
  if (project) checkTaskSources(project, task);
}

/** Waits (a little) for the task's last run to close; task_still_stopping if it does not. */
async function previousRunClosed(deps: SubmitDeps, taskId: string): Promise<void> {
  const handle = deps.temporal.workflow.getHandle(taskId);
  const running = async () => {
    try {
      return (await handle.describe()).status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  };
  if (!(await running())) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([handle.result().catch(() => undefined), new Promise((r) => (timer = setTimeout(r, PREVIOUS_RUN_WAIT_MS)))]);
  clearTimeout(timer);
  if (await running()) throw new DomainError('task_still_stopping', 'the previous run is still cleaning up; try again in a few seconds', { retryAfter: 5 });
}
