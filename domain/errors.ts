// The one error type of the service. Domain code says what went wrong (a code and a sentence);
// api/errors.ts alone decides how that looks in HTTP.

export interface FieldError {
  field: string;
  message: string;
}

export interface DomainErrorOptions {
  /** Which input fields are at fault (422 details). */
  details?: FieldError[];
  /** Seconds until trying again makes sense. */
  retryAfter?: number;
}

export class DomainError extends Error {
  override name = 'DomainError';
  readonly details: FieldError[] | undefined;
  readonly retryAfter: number | undefined;

  constructor(
    readonly code: string,
    message: string,
    opts: DomainErrorOptions = {},
  ) {
    super(message);
    this.details = opts.details;
    this.retryAfter = opts.retryAfter;
  }

  static notFound(what: string): DomainError {
    return new DomainError('not_found', `${what} was not found`);
  }

  /** One input field at fault: validation_failed unless another code says more. */
  static invalid(field: string, detail: string, message = `${field}: ${detail}`, code = 'validation_failed'): DomainError {
    return new DomainError(code, message, { details: [{ field, message: detail }] });
  }
}
