// Where domain errors become Temporal failures (docs/adr/0023-one-error-vocabulary.md): domain code
// throws DomainError, a workflow sees an ApplicationFailure whose type is a task's error code.
import { CompleteAsyncError } from '@temporalio/activity';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { DomainError } from '../domain/errors.js';
import { isTaskErrorCode } from '../model/errors.js';

/**
 * What an activity's failure looks like to its workflow:
 * - a DomainError with a task's code: an ApplicationFailure of that type, retried only if the
 *   error says a retry may help (and then after its delay, when it names one);
 * - Temporal's own failures (an activity's deliberate ApplicationFailure such as waiting_for_slot,
 *   a cancellation), an AbortError and CompleteAsyncError: as they are, the worker reads them;
 * - a full disk (ENOSPC, EDQUOT, EFBIG): storage_failed, not retried;
 * - the database unreachable (db/unavailable.ts): internal_error, retried after 5 s, its message saying so;
 * - anything else (a DomainError with a request's code, a file system or database error):
 *   internal_error, still retryable, because the activity's retry policy is what decides for an
 *   error nobody classified (a database that blinked comes back).
 */
export function toActivityFailure(err: unknown): unknown {
  if (err instanceof TemporalFailure || err instanceof CompleteAsyncError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  if (err instanceof DomainError && isTaskErrorCode(err.code)) {
    const failure = ApplicationFailure.create({
      type: err.code,
      message: err.message,
      nonRetryable: !err.retryable,
      ...(err.retryable && err.nextRetryDelayMs ? { nextRetryDelay: err.nextRetryDelayMs } : {}),
    });
    // The stack of where the domain threw, not of this translation: that is what a log reader needs.
    if (err.stack) failure.stack = err.stack;
    return failure;
  }
  // The worker's scratch disk full: this export fails now, cleanly (the render removed its partial
  // file), rather than retrying into the same full disk for minutes.
  if (err instanceof Error && DISK_FULL.has((err as NodeJS.ErrnoException).code ?? '')) {
    return ApplicationFailure.create({ type: 'storage_failed', message: `the worker's disk is full: ${err.message}`, nonRetryable: true });
  }
  // A database restarting: retried every 5 s whatever the policy's backoff, so an outage of a few
  // seconds costs an attempt or two rather than a source lane's whole budget (its first waits can
  // be a fraction of a second).
  if (isDatabaseUnavailable(err)) {
    const failure = ApplicationFailure.create({ type: 'internal_error', message: `database unavailable: ${(err as Error).message}`, nonRetryable: false, nextRetryDelay: DB_RETRY_DELAY_MS });
    unavailableFailures.add(failure);
    return failure;
  }
  const message = err instanceof DomainError ? `${err.code}: ${err.message}` : err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return ApplicationFailure.create({ type: 'internal_error', message, nonRetryable: false, ...(err instanceof Error ? { cause: err } : {}) });
}

const DB_RETRY_DELAY_MS = 5000;

const unavailableFailures = new WeakSet<object>();

/** Whether an activity failed because the database was unreachable: the worker then pauses (app/worker-supervisor.ts). */
export const isDatabaseUnavailableFailure = (err: unknown): boolean => typeof err === 'object' && err !== null && unavailableFailures.has(err);

/** No space, over quota, over the file-size limit. */
const DISK_FULL = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

type AsyncFn = (...args: never[]) => Promise<unknown>;

/** An activity factory's functions, each translating what it throws (the one place per factory). */
export function atBoundary<T extends Record<string, AsyncFn>>(activities: T): T {
  const wrapped: Record<string, AsyncFn> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        throw toActivityFailure(err);
      }
    };
  }
  return wrapped as T;
}
