import { ApplicationFailure } from '@temporalio/common';

/** Error codes a failed task can carry (CONTRACT §4); the ApplicationFailure type is the code. */
export type TaskErrorCode =
  | 'source_unreachable'
  | 'source_bad_response'
  | 'source_changed'
  | 'render_failed'
  | 'storage_failed'
  | 'template_invalid'
  | 'export_too_large'
  | 'internal_error';

export const permanent = (code: TaskErrorCode, message: string): ApplicationFailure =>
  ApplicationFailure.create({ type: code, message, nonRetryable: true });

export const transient = (code: TaskErrorCode, message: string, nextRetryDelayMs?: number): ApplicationFailure =>
  ApplicationFailure.create({
    type: code,
    message,
    nonRetryable: false,
    ...(nextRetryDelayMs ? { nextRetryDelay: nextRetryDelayMs } : {}),
  });
