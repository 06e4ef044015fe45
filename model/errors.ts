// The service's one error vocabulary (docs/adr/0023-one-error-vocabulary.md). The API answers with
// these codes, a failed task carries one of TASK_ERROR_CODES as error.code, and an activity's
// ApplicationFailure type is that code. It lives in model/ because workflows may import only model/.

/** Codes a failed task can carry as error.code; a failure of any other kind is reported as internal_error. */
export const TASK_ERROR_CODES = [
  'source_unreachable',
  'source_bad_response',
  'source_changed',
  'source_host_not_allowed',
  'render_failed',
  'storage_failed',
  'template_invalid',
  'chart_column_unknown',
  'export_too_large',
  'destination_auth_failed',
  'destination_bucket_missing',
  'destination_permission_denied',
  'destination_host_not_allowed',
  'destination_not_found',
  'destination_unreachable',
  'destination_host_key_mismatch',
  'internal_error',
  'too_many_parts',
] as const;

export type TaskErrorCode = (typeof TASK_ERROR_CODES)[number];

/** Codes only a request's answer carries (a refused or impossible request, not a failed export). */
export const REQUEST_ERROR_CODES = [
  'malformed_json',
  'bad_request',
  'unauthorized',
  'forbidden',
  'invalid_signature',
  'not_found',
  'method_not_allowed',
  'not_ready',
  'task_finished',
  'task_not_retryable',
  'task_still_stopping',
  'task_cancelled',
  'task_not_pausable',
  'task_not_paused',
  'task_duplicate_live',
  'schedule_limit_reached',
  'schedule_paused',
  'backfill_too_large',
  'conflict',
  'expired',
  'link_expired',
  'payload_too_large',
  'preview_too_large',
  'validation_failed',
  'compression_unsupported',
  'callback_host_not_allowed',
  'email_domain_not_allowed',
  'idempotency_key_reused',
  'upgrade_required',
  'rate_limited',
  'quota_exceeded',
  'temporal_unavailable',
  'database_unavailable',
  'too_many_connections',
  'shutting_down',
  'console_not_built',
  'limit_reached',
] as const;

/**
 * Every code an API error answer can carry: the request's own, and a failed export's (the sync
 * export and the preview answer with the code the export failed with).
 */
export const API_ERROR_CODES = [...REQUEST_ERROR_CODES, ...TASK_ERROR_CODES] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** The code of a DomainError: what went wrong, whoever reports it. */
export type ErrorCode = ApiErrorCode | TaskErrorCode;

const taskCodes: ReadonlySet<string> = new Set(TASK_ERROR_CODES);

export function isTaskErrorCode(code: unknown): code is TaskErrorCode {
  return typeof code === 'string' && taskCodes.has(code);
}

/** A failure's type as a task's error.code: a type outside the vocabulary (say "Error") is internal_error. */
export function taskErrorCode(type: string | null | undefined): TaskErrorCode {
  return isTaskErrorCode(type) ? type : 'internal_error';
}

/** Source failures that no retry can fix: the workflow does not retry them. */
export const SOURCE_ERRORS_PERMANENT: TaskErrorCode[] = ['source_bad_response', 'source_changed', 'source_host_not_allowed', 'template_invalid'];

/**
 * Delivery failures into a customer's bucket that no retry can fix (wrong secret, no such bucket,
 * no right to write, a host the project no longer allows, a destination deleted): the task fails
 * at once. Anything else (DNS, TLS, refused or dropped connections, 5xx) is retried with backoff,
 * bar a request the bucket refuses for good (a key too long …): a non-retryable internal_error
 * (domain/destinations/failures.ts).
 */
export const DESTINATION_ERRORS_PERMANENT: TaskErrorCode[] = ['destination_auth_failed', 'destination_bucket_missing', 'destination_permission_denied', 'destination_host_not_allowed', 'destination_not_found'];

/** Failure types that end a callback delivery for good (activities/notify.ts throws them). */
export const CALLBACK_STOP_TYPES = ['callback_rejected', 'callback_gave_up', 'callback_host_not_allowed'];

/** Failure types that end an e-mail's delivery for good (activities/email.ts throws them). */
export const EMAIL_STOP_TYPES = ['email_rejected', 'email_domain_not_allowed', 'email_in_doubt', 'email_not_configured'];
