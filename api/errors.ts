// The one error type of the API and the one onError that renders it:
// { "error": { "code", "message", "request_id", "details"? } }.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} was not found`);

export function validationError(error: z.ZodError): ApiError {
  const details = error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
  const first = details[0];
  const message = first ? `${first.field}: ${first.message}` : 'the request is not valid';
  return new ApiError(422, 'validation_failed', message, details);
}

export function onError(err: Error, c: Context): Response {
  const request_id = (c.get('requestId' as never) as string | undefined) ?? null;
  if (err instanceof ApiError) {
    const body = { error: { code: err.code, message: err.message, request_id, ...(err.details ? { details: err.details } : {}) } };
    return c.json(body, err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    const code = err.status === 413 ? 'payload_too_large' : err.status === 401 ? 'unauthorized' : 'bad_request';
    return c.json({ error: { code, message: err.message || 'bad request', request_id } }, err.status);
  }
  console.error(`[api] ${request_id ?? '-'} unhandled`, err);
  return c.json({ error: { code: 'internal_error', message: 'an unexpected error occurred', request_id } }, 500);
}
