// Cancel and retry (CONTRACT §4). The row changes first, conditionally, so two callers cannot both
// win; Temporal is told second. The workflow never overwrites a cancelled row (status.ts).
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TaskRow } from '../../db/schema.js';
import { RETRYABLE_STATUSES } from '../../model/task.js';
import { DomainError } from '../errors.js';
import { startRun } from './run.js';
import { cancelActive, finishTask, resetForRetry } from './status.js';
import type { SubmitDeps } from './submit.js';

// A cancelled run cleans up (stops its fetches, removes staged data) before it closes; a retry
// waits this long for that before it gives up and asks the caller to try again.
const PREVIOUS_RUN_WAIT_MS = 15_000;

export async function cancelTask(deps: SubmitDeps, task: TaskRow): Promise<TaskRow> {
  const row = await cancelActive(deps.db, task.id);
  if (!row) throw new DomainError('task_finished', `the task is already ${task.status}; only a queued or running task can be cancelled`);
  try {
    // The workflow's activities see the cancellation at their next heartbeat (about a second).
    await deps.temporal.workflow.getHandle(task.id).cancel();
  } catch (err) {
    // Not found: the run already ended. Otherwise the run still sees the cancelled row at its
    // next step and discards what it made (workflows/export.ts).
    if (!(err instanceof WorkflowNotFoundError)) console.error(`[control] cancel ${task.id}: ${(err as Error).message}`);
  }
  return row;
}

export async function retryTask(deps: SubmitDeps, task: TaskRow): Promise<TaskRow> {
  if (!(RETRYABLE_STATUSES as readonly string[]).includes(task.status)) {
    throw new DomainError('task_not_retryable', `the task is ${task.status}; only a failed or cancelled task can be retried`);
  }
  if (!(await previousRunClosed(deps, task.id))) {
    throw new DomainError('task_still_stopping', 'the previous run is still cleaning up; try again in a few seconds', { retryAfter: 5 });
  }
  const row = await resetForRetry(deps.db, task.id);
  if (!row) throw new DomainError('task_not_retryable', 'the task changed meanwhile; fetch it and try again');
  try {
    await startRun(deps, row);
  } catch (err) {
    const message = `the retry could not be scheduled: ${(err as Error).message}`;
    await finishTask(deps.db, row.id, { status: 'failed', errorCode: 'internal_error', errorMessage: message });
    throw new DomainError('temporal_unavailable', message);
  }
  return row;
}

async function previousRunClosed(deps: SubmitDeps, taskId: string): Promise<boolean> {
  const handle = deps.temporal.workflow.getHandle(taskId);
  const running = async () => {
    try {
      return (await handle.describe()).status.name === 'RUNNING';
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  };
  if (!(await running())) return true;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    handle.result().catch(() => undefined),
    new Promise((r) => (timer = setTimeout(r, PREVIOUS_RUN_WAIT_MS))),
  ]);
  clearTimeout(timer);
  return !(await running());
}
