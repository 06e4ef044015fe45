// Failure types shared by activities (which throw them) and workflows (which decide on them).
import { ApplicationFailure } from '@temporalio/common';

/** Error codes a failed task can carry (docs/api.md#task-error-codes); the ApplicationFailure type is the code. */
export type TaskErrorCode =
  | 'source_unreachable'
  | 'source_bad_response'
  | 'source_changed'
  | 'render_failed'
  | 'storage_failed'
  | 'template_invalid'
  | 'export_too_large'
  | 'internal_error';

/** Source failures that no retry can fix: the workflow does not retry them. */
export const SOURCE_ERRORS_PERMANENT: TaskErrorCode[] = ['source_bad_response', 'source_changed', 'template_invalid'];

/** Failure types that end a callback delivery for good (activities/notify.ts throws them). */
export const CALLBACK_STOP_TYPES = ['callback_rejected', 'callback_gave_up', 'callback_host_not_allowed'];

export const permanent = (code: TaskErrorCode, message: string): ApplicationFailure =>
  ApplicationFailure.create({ type: code, message, nonRetryable: true });

export const transient = (code: TaskErrorCode, message: string, nextRetryDelayMs?: number): ApplicationFailure =>
  ApplicationFailure.create({
    type: code,
    message,
    nonRetryable: false,
    ...(nextRetryDelayMs ? { nextRetryDelay: nextRetryDelayMs } : {}),
  });
