// The one place that turns errors into HTTP: a DomainError's code picks its status from the table
// below, and every error answer has the shape { "error": { "code", "message", "request_id", "details"? } }.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { DomainError } from '../domain/errors.js';
import type { ApiErrorCode, TaskErrorCode } from '../model/errors.js';
import { RateLimitedError, type RateState } from '../domain/tasks/rate.js';
import { QuotaExceededError } from '../domain/usage/quota.js';

/** Every code's status; a Record over the whole vocabulary, so a code without one does not compile. */
export const STATUS: Record<ApiErrorCode, ContentfulStatusCode> = {
  malformed_json: 400,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  invalid_signature: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_ready: 409,
  task_finished: 409,
  task_not_retryable: 409,
  task_still_stopping: 409,
  task_cancelled: 409,
  task_not_pausable: 409,
  task_not_paused: 409,
  task_duplicate_live: 409,
  schedule_limit_reached: 409,
  limit_reached: 409,
  schedule_paused: 409,
  conflict: 409,
  expired: 410,
  link_expired: 410,
  payload_too_large: 413,
  validation_failed: 422,
  backfill_too_large: 422,
  compression_unsupported: 422,
  preview_too_large: 422,
  source_host_not_allowed: 422,
  callback_host_not_allowed: 422,
  destination_host_not_allowed: 422,
  destination_not_found: 404,
  email_domain_not_allowed: 422,
  idempotency_key_reused: 422,
  upgrade_required: 426,
  rate_limited: 429,
  quota_exceeded: 429,
  temporal_unavailable: 503,
  database_unavailable: 503,
  too_many_connections: 503,
  shutting_down: 503,
  console_not_built: 503,
  // A failed export's codes (the sync export and the preview answer with them; docs/adr/0039-a-failed-exports-status.md). The rule: the
  // source's fault is a bad gateway (502), the request's or its data's a 422, ours alone a 5xx.
  // 502: the source could not be reached, answered badly or changed; template_invalid too, as a
  // request's own template is refused at submission (422 validation_failed) and so this code only
  // ever names the source's template. 422: the export as asked cannot be made of this data: over
  // MAX_EXPORT_ROWS, or a value that does not fit its column (render_failed is thrown deliberately
  // on data, naming row and column; an unexpected exception while rendering is internal_error).
  source_unreachable: 502,
  source_bad_response: 502,
  source_changed: 502,
  template_invalid: 502,
  export_too_large: 422,
  // A chart naming a column the source's answer lacks: the request's charts are at fault, not the source.
  chart_column_unknown: 422,
  // More files than MAX_PARTS by the task's own split limits: the request's to change, as above.
  too_many_parts: 422,
  render_failed: 422,
  // The customer's bucket refused or could not be reached (a delivery's codes, docs/destinations.md).
  destination_auth_failed: 502,
  destination_bucket_missing: 502,
  destination_permission_denied: 502,
  destination_unreachable: 502,
  // The SFTP server showed another host key than the pinned one (a moved server, or someone in between).
  destination_host_key_mismatch: 502,
  // Ours: the store refused, or something nobody expected (its text stays in the log, never in the answer).
  storage_failed: 500,
  internal_error: 500,
};

/** A restart or failover takes seconds (docs/operations.md); the client's next try is likely to succeed. */
const DB_RETRY_AFTER_SECONDS = 5;

/** Headers an answer with this code always carries. */
const HEADERS: Partial<Record<ApiErrorCode, Record<string, string>>> = {
  unauthorized: { 'WWW-Authenticate': 'Bearer' },
  upgrade_required: { Upgrade: 'websocket' },
};

/** IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers): the policy and what is left of it. */
export function rateLimitHeaders(rate: RateState): Record<string, string> {
  return { 'RateLimit-Policy': `"submit";q=${rate.limit};w=60`, RateLimit: `"submit";r=${rate.remaining};t=${rate.resetSeconds}` };
}

export function statusOf(code: ApiErrorCode): ContentfulStatusCode {
  return STATUS[code];
}

/**
 * A failed export as an answer (the sync export): its code at its status. The source's or the
 * data's fault keeps the task's own sentence (the source's answer, the row and column), written to
 * be read by the caller. A fault of ours says only that: the task's message may hold an unexpected
 * error's raw text (a path, a driver's words), which the task's log keeps.
 */
export function failedExport(taskId: string, code: TaskErrorCode, message: string | null): DomainError {
  const ours = STATUS[code] >= 500 && STATUS[code] !== 502;
  const why = ours ? `it failed on the service's side (${code}); the service's log has the details under the task id` : (message ?? code);
  return new DomainError(code, `the export failed (task ${taskId}): ${why}`);
}

function body(c: Context, code: ApiErrorCode, message: string, details?: unknown, quota?: unknown) {
  const request_id = (c.get('requestId' as never) as string | undefined) ?? null;
  return { error: { code, message, request_id, ...(details ? { details } : {}), ...(quota ? { quota } : {}) } };
}

export function onError(err: Error, c: Context): Response {
  if (err instanceof DomainError) {
    const headers = {
      ...HEADERS[err.code],
      ...(err.retryAfter ? { 'Retry-After': String(err.retryAfter) } : {}),
      ...(err instanceof RateLimitedError ? rateLimitHeaders(err.rate) : {}),
    };
    const quota = err instanceof QuotaExceededError ? err.quota : undefined;
    return c.json(body(c, err.code, err.message, err.details, quota), statusOf(err.code), headers);
  }
  if (err instanceof HTTPException) {
    const code = err.status === 413 ? 'payload_too_large' : err.status === 401 ? 'unauthorized' : 'bad_request';
    return c.json(body(c, code, err.message || 'bad request'), err.status);
  }
  // A database restarting or failing over: the request may succeed in a few seconds. The driver's
  // message (addresses) stays in the log.
  if (isDatabaseUnavailable(err)) {
    return c.json(body(c, 'database_unavailable', 'the database cannot be reached right now; try again shortly'), 503, { 'Retry-After': String(DB_RETRY_AFTER_SECONDS) });
  }
  // Logged with its stack by the request log (middleware/request-log.ts), never to the caller.
  return c.json(body(c, 'internal_error', 'an unexpected error occurred'), 500);
}
