// Validation at the edge: @hono/zod-validator with a hook that answers 422 validation_failed and
// names each field (details[].field), as the API always has.
import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { z } from 'zod';
import { DomainError } from '../domain/errors.js';

export function validationError(error: z.ZodError, fieldNames: Record<string, string> = {}): DomainError {
  const details = error.issues.map((i) => {
    const field = i.path.join('.') || '(body)';
    return { field: fieldNames[field] ?? field, message: i.message };
  });
  const first = details[0];
  return new DomainError('validation_failed', first ? `${first.field}: ${first.message}` : 'the request is not valid', { details });
}

/** zValidator whose failures are DomainErrors; `fieldNames` renames paths (header names keep their case). */
export function valid<T extends keyof ValidationTargets, S extends z.ZodType>(target: T, schema: S, fieldNames?: Record<string, string>) {
  return zValidator(target, schema, (result) => {
    if (!result.success) throw validationError(result.error as unknown as z.ZodError, fieldNames);
  });
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Reads the body as JSON whatever its Content-Type says (an empty body is {}), or answers 400
 * malformed_json. zValidator('json') reads bodies only under a JSON media type; the API has always
 * taken them as JSON, so the parsed body is handed on under that type.
 */
export const jsonBody = createMiddleware(async (c, next) => {
  const text = await c.req.text();
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new DomainError('malformed_json', 'the request body is not valid JSON');
  }
  c.req.bodyCache.json = Promise.resolve(parsed);
  const type = c.req.header('content-type')?.split(';')[0]?.trim() ?? '';
  if (!JSON_TYPE.test(type)) c.req.raw.headers.set('content-type', 'application/json');
  await next();
});
