// Activity option profiles of the export workflow, by kind of work. Timeouts and retry policies
// live here so the workflow itself reads as its list of steps.
import { ActivityCancellationType, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import { DELIVER_MAX_ATTEMPTS, EMAIL_MAX_ATTEMPTS } from '../model/activities.js';
import { DESTINATION_ERRORS_PERMANENT, EMAIL_STOP_TYPES, SOURCE_ERRORS_PERMANENT } from '../model/errors.js';

export interface RetrySettings {
  initialMs: number;
  maxAttempts: number;
  /** The project's longest wait between two attempts. */
  maxIntervalMs: number;
  /** `uniform`: every wait is maxIntervalMs; `exponential`: doubling from initialMs up to maxIntervalMs. */
  backoff: 'exponential' | 'uniform';
}

/** The wait before the retry `stepsAhead` steps along the backoff. */
export function retryWait(retry: RetrySettings, stepsAhead = 0): number {
  if (retry.backoff === 'uniform') return retry.maxIntervalMs;
  return Math.min(retry.initialMs * 2 ** stepsAhead, retry.maxIntervalMs);
}

/** Temporal's retry schedule for the settings: equal waits (coefficient 1), or doubling up to the longest. */
function backoff(retry: RetrySettings, stepsAhead: number) {
  return {
    initialInterval: retryWait(retry, stepsAhead),
    backoffCoefficient: retry.backoff === 'uniform' ? 1 : 2,
    maximumInterval: retry.maxIntervalMs,
  };
}

/** The bounds of a task-row update's retries (docs/adr/0037-a-task-always-ends.md). */
export const TASK_STATE_MAX_ATTEMPTS = 20;

/**
 * Short task-row updates: retried for a database away for minutes (waits of 1 s growing to 10 s),
 * but bounded, 20 attempts (about 2.5 minutes of refusals): a database that refuses the update
 * itself (issue 30: a NUL in a message) must not keep the run, and its task, running for ever.
 * Attempts, not time: during an outage the worker stops polling (app/worker-supervisor.ts), so an
 * outage however long costs an attempt or two, and a time bound would fail (and discard) a finished
 * export whose database was away longer than it. A run
 * whose end could not be recorded ends anyway; the reconciler ends its task
 * (domain/tasks/reconcile.ts). Only new schedules take the policy; a replay does not compare it.
 */
export const taskState: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 1.5, maximumInterval: '10 seconds', maximumAttempts: TASK_STATE_MAX_ATTEMPTS },
};

/**
 * A run's start waiting for its project's slot (startTask answering `waiting_for_slot`, retried
 * every couple of seconds): the one state step retried for as long as it takes, since the wait is
 * its work and its task is `queued` meanwhile (it holds no slot). Only a run whose admission was
 * withdrawn as it started waits here.
 */
export const slotWait: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 1.5, maximumInterval: '10 seconds' },
};

/**
 * The same task-row updates as local activities (the export's short steps, export.ts): a few
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
      ...backoff(retry, stepsAhead),
      maximumAttempts: retry.maxAttempts,
      nonRetryableErrorTypes: SOURCE_ERRORS_PERMANENT,
    },
  };
}

/**
 * One e-mail (activities/email.ts): an SMTP exchange bounded by the mailer's own timeouts (well
 * under a minute), so an attempt still running after 2 minutes is taken for dead. The activity
 * sets each wait itself (10 s doubling to 30 minutes); these values apply when an attempt crashes.
 */
export const email: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes', maximumAttempts: EMAIL_MAX_ATTEMPTS, nonRetryableErrorTypes: EMAIL_STOP_TYPES },
};

/**
 * Rendering, publishing and discarding: long, heartbeating, retried for about 100 s in all (waits of
 * 2, 4, 8 then 15 s), so a store or database away for a minute costs retries, not the export
 * (docs/operations.md#when-the-platform-fails). Only new schedules take the policy; a replay does
 * not compare it.
 */
export const work: ActivityOptions = {
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '15 seconds', maximumAttempts: 10 },
};

/**
 * Delivery into the customer's bucket (activities/deliver.ts): a short heartbeat timeout, so the
 * upload of a killed worker resumes elsewhere within seconds; a bucket that does not answer is
 * retried with a growing wait for about half an hour; a refusal no retry can mend (a wrong secret,
 * no such bucket, no right to write) fails at once.
 */
export const deliver: ActivityOptions = {
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '15 seconds',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: DELIVER_MAX_ATTEMPTS, nonRetryableErrorTypes: DESTINATION_ERRORS_PERMANENT },
};

/**
 * Publishing as a local activity (after the render): moving the rendered
 * files is a rename on a local store and a server-side copy on S3, minutes at most for the largest
 * part; retried like `work`.
 */
export const localPublish: LocalActivityOptions = {
  startToCloseTimeout: '10 minutes',
  retry: work.retry!,
};

const LOCAL_MAX_WAIT_MS = 10_000;

/**
 * The sync export's local activities (workflows/sync-export.ts): run by the worker that runs the
 * workflow, retried there. Bounded in total, as the caller waits for the answer (SYNC_TIMEOUT_MS
 * by default is a minute); a retry after longer than localRetryThreshold (1 minute) would become a
 * timer, so within these bounds every retry stays local. Source errors follow the same rules as
 * the export's (permanent ones not retried).
 */
export function local(retry: RetrySettings): LocalActivityOptions {
  // The project's schedule, its waits held under LOCAL_MAX_WAIT_MS so the caller still gets an answer.
  const capped = { ...retry, maxIntervalMs: Math.min(retry.maxIntervalMs, LOCAL_MAX_WAIT_MS) };
  return {
    startToCloseTimeout: '1 minute',
    scheduleToCloseTimeout: '2 minutes',
    retry: {
      ...backoff(capped, 0),
      maximumAttempts: retry.maxAttempts,
      nonRetryableErrorTypes: SOURCE_ERRORS_PERMANENT,
    },
  };
}

/**
 * Expiry (workflows/cleanup.ts): one activity works through the whole backlog in short batches,
 * heartbeating after each; a dead worker's attempt is retried within the minute and finds what is left.
 */
export const expiry: ActivityOptions = {
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
};
