// The one error type domain code throws. It says what went wrong (a code from model/errors.ts and a
// sentence); api/errors.ts alone decides how that looks in HTTP, and activities/failure.ts how it
// looks to a workflow (docs/adr/0023-one-error-vocabulary.md).
import type { ErrorCode } from '../model/errors.js';

export type { ErrorCode } from '../model/errors.js';

export interface FieldError {
  field: string;
  message: string;
}

export interface DomainErrorOptions {
  /** Which input fields are at fault (422 details). */
  details?: FieldError[];
  /** Seconds until trying again makes sense (an API answer's Retry-After). */
  retryAfter?: number;
  /** Trying again may succeed (a source that did not answer): an activity's retry policy applies. */
  retryable?: boolean;
  /** When a retry makes sense, if the failure says (a source's Retry-After). */
  nextRetryDelayMs?: number;
}

export class DomainError extends Error {
  override name = 'DomainError';
  readonly details: FieldError[] | undefined;
  readonly retryAfter: number | undefined;
  readonly retryable: boolean;
  readonly nextRetryDelayMs: number | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    opts: DomainErrorOptions = {},
  ) {
    super(message);
    this.details = opts.details;
    this.retryAfter = opts.retryAfter ?? (opts.nextRetryDelayMs ? Math.ceil(opts.nextRetryDelayMs / 1000) : undefined);
    this.retryable = opts.retryable ?? false;
    this.nextRetryDelayMs = opts.nextRetryDelayMs;
  }

  static notFound(what: string): DomainError {
    return new DomainError('not_found', `${what} was not found`);
  }

  /** One input field at fault: validation_failed unless another code says more. */
  static invalid(field: string, detail: string, message = `${field}: ${detail}`, code: ErrorCode = 'validation_failed'): DomainError {
    return new DomainError(code, message, { details: [{ field, message: detail }] });
  }

  /** A failure that retries may fix (a task's transient failure), optionally after a given delay. */
  static transient(code: ErrorCode, message: string, nextRetryDelayMs?: number): DomainError {
    return new DomainError(code, message, { retryable: true, ...(nextRetryDelayMs ? { nextRetryDelayMs } : {}) });
  }

  /** The same failure, its sentence prefixed (a workbook's sheet named first), or itself without one. */
  labelled(label: string): DomainError {
    if (!label) return this;
    const { details, retryAfter, retryable, nextRetryDelayMs } = this;
    return new DomainError(this.code, `${label}: ${this.message}`, {
      ...(details ? { details } : {}),
      ...(retryAfter ? { retryAfter } : {}),
      retryable,
      ...(nextRetryDelayMs ? { nextRetryDelayMs } : {}),
    });
  }
}
