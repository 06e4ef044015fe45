// Activity option profiles of the export workflow, by kind of work. Timeouts and retry policies
// live here so the workflow itself reads as its list of steps.
import { ActivityCancellationType, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import { SOURCE_ERRORS_PERMANENT } from '../model/errors.js';

export interface RetrySettings {
  initialMs: number;
  maxAttempts: number;
}

/** Short task-row updates. The slot wait retries every couple of seconds for as long as it takes. */
export const taskState: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 1.5, maximumInterval: '10 seconds' },
};

/**
 * The same task-row updates run as local activities (the export's lean steps, export.ts): a few
 * milliseconds each in the worker holding the workflow task, instead of a task-queue round trip
 * and a workflow task per step. Retried like taskState, locally; but a wait for a slot is not
 * retried here: local retries would sleep in the worker, so the export hands that wait to the
 * activity (its retries are the server's timers).
 */
export const localTaskState: LocalActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { ...taskState.retry, nonRetryableErrorTypes: ['waiting_for_slot'] },
};

/**
 * Source requests: a short heartbeat timeout, so a killed worker's pages move to another worker
 * within seconds; on cancel, wait until fetches have really stopped, so nothing is staged after
 * the cleanup. `stepsAhead` starts the backoff further along (a lane resuming after stored pages).
 */
export function source(retry: RetrySettings, heartbeatTimeoutMs: number, stepsAhead = 0): ActivityOptions {
  return {
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: heartbeatTimeoutMs,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: retry.initialMs * 2 ** stepsAhead,
      backoffCoefficient: 2,
      maximumAttempts: retry.maxAttempts,
      nonRetryableErrorTypes: SOURCE_ERRORS_PERMANENT,
    },
  };
}

/** Rendering, publishing and discarding: long, heartbeating, a few retries. */
export const work: ActivityOptions = {
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
};

/**
 * Publishing as a local activity (the export's lean steps after dc-lean-publish): moving the rendered
 * files is a rename on a local store and a server-side copy on S3, minutes at most for the largest
 * part; retried like `work`.
 */
export const localPublish: LocalActivityOptions = {
  startToCloseTimeout: '10 minutes',
  retry: work.retry!,
};

/**
 * The sync export's local activities (workflows/sync-export.ts): run by the worker that runs the
 * workflow, retried there. Bounded in total, as the caller waits for the answer (SYNC_TIMEOUT_MS
 * by default is a minute); a retry after longer than localRetryThreshold (1 minute) would become a
 * timer, so within these bounds every retry stays local. Source errors follow the same rules as
 * the export's (permanent ones not retried).
 */
export function local(retry: RetrySettings): LocalActivityOptions {
  return {
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: '2 minutes',
    retry: {
      initialInterval: retry.initialMs,
      backoffCoefficient: 2,
      maximumInterval: '10 seconds',
      maximumAttempts: retry.maxAttempts,
      nonRetryableErrorTypes: SOURCE_ERRORS_PERMANENT,
    },
  };
}
