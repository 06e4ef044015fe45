// Validation at the edge: the routes' zod schemas (createRoute, api/openapi.ts) run through
// @hono/zod-validator with a hook that answers 422 validation_failed and names each field
// (details[].field). Before any schema runs, text that no field may hold is refused the same
// way, a 422 naming the field (docs/api.md#conventions): a NUL character, an unpaired UTF-16
// surrogate, or bytes that are not UTF-8. Postgres cannot store the first (it would answer 500),
// and the others would be stored as something else.
import { zValidator } from '@hono/zod-validator';
import type { Context, ValidationTargets } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { z } from 'zod';
import { DomainError, type FieldError } from '../domain/errors.js';
import type { ErrorCode } from '../model/errors.js';
import { findBadText, MAX_DETAILS, printable, textProblem, UTF8_MESSAGE } from './text.js';

export function validationError(error: z.ZodError, fieldNames: Record<string, string> = {}): DomainError {
  // A rule with a code of its own (compression_unsupported) answers with it rather than validation_failed.
  const own = error.issues.map((i) => (i.code === 'custom' ? (i.params as { code?: ErrorCode } | undefined)?.code : undefined)).find(Boolean);
  const details = error.issues.flatMap((i) => {
    // A field the schema does not know (strict schemas): named itself, not the object around it.
    if (i.code === 'unrecognized_keys') return i.keys.map((k) => ({ field: [...i.path, k].join('.'), message: 'is not a field of this request' }));
    const field = i.path.join('.') || '(body)';
    return [{ field: fieldNames[field] ?? field, message: i.message }];
  });
  return fieldErrors(details, own);
}

function fieldErrors(details: FieldError[], code: ErrorCode = 'validation_failed'): DomainError {
  const first = details[0];
  return new DomainError(code, first ? `${first.field}: ${first.message}` : 'the request is not valid', { details });
}

function refuse(details: FieldError[]): void {
  if (details.length > 0) throw fieldErrors(details.slice(0, MAX_DETAILS));
}

// ---- JSON bodies -------------------------------------------------------------------------------

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;
/** Requests whose JSON body jsonBody has already checked for bad text. */
const checkedBodies = new WeakSet<Request>();
const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Lenient = new TextDecoder('utf-8');

/**
 * Reads the body as JSON whatever its Content-Type says (an empty body is {}), or answers 400
 * malformed_json. zValidator('json') reads bodies only under a JSON media type; the API has always
 * taken them as JSON, so the parsed body is handed on under that type. Any string in it (or key)
 * holding bad text, or bytes that are not UTF-8, answers 422 naming the field.
 */
export const jsonBody = createMiddleware(async (c, next) => {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  let text: string;
  let notUtf8 = false;
  try {
    text = utf8.decode(bytes);
  } catch {
    // Decoded again with U+FFFD for each bad sequence, to find (and name) the fields they are in.
    text = utf8Lenient.decode(bytes);
    notUtf8 = true;
  }
  let parsed: unknown;
  try {
    parsed = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    throw new DomainError('malformed_json', 'the request body is not valid JSON');
  }
  if (notUtf8) {
    const fields = findBadText(parsed, (s) => (s.includes('\ufffd') ? UTF8_MESSAGE : null));
    refuse(fields.length > 0 ? fields : [{ field: '(body)', message: UTF8_MESSAGE }]);
  }
  refuse(findBadText(parsed));
  checkedBodies.add(c.req.raw);
  // Hono's c.req.json() parses the cached text (this version), others read the cached json: both
  // are set, so an empty body reaches the schema as {} rather than as malformed JSON.
  c.req.bodyCache.json = Promise.resolve(parsed);
  // The cache holds the promises Body's methods return, whatever its type says of text.
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(JSON.stringify(parsed));
  // Whatever type it came with (none, text/plain, a JSON type with odd parameters), it is JSON now:
  // said plainly, so the route's own media-type check (@hono/zod-openapi answers 415) never refuses it.
  c.req.raw.headers.set('content-type', 'application/json');
  await next();
});

// ---- query, headers, path parameters -----------------------------------------------------------

/** Percent-escapes that do not decode as UTF-8, in the raw query: Hono leaves them as they came. */
function undecodableQuery(url: string): FieldError[] {
  const q = url.indexOf('?');
  if (q < 0) return [];
  const found: FieldError[] = [];
  for (const segment of url.slice(q + 1).split('#')[0]!.split('&')) {
    const runs = segment.match(/(?:%[0-9a-f]{2})+/gi);
    if (!runs) continue;
    const bad = runs.some((run) => {
      try {
        decodeURIComponent(run);
        return false;
      } catch {
        return true;
      }
    });
    if (!bad) continue;
    const rawKey = segment.split('=')[0]!.replace(/\+/g, ' ');
    let key: string;
    try {
      key = decodeURIComponent(rawKey);
    } catch {
      key = rawKey;
    }
    found.push({ field: printable(key), message: `${UTF8_MESSAGE} (percent-encoded)` });
  }
  return found;
}

function checkPairs(pairs: Iterable<[string, string | string[] | undefined]>, fieldNames: Record<string, string>): FieldError[] {
  const found: FieldError[] = [];
  for (const [key, value] of pairs) {
    const keyWhy = textProblem(key);
    if (keyWhy) {
      found.push({ field: printable(key), message: keyWhy });
      continue;
    }
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      const why = textProblem(v);
      if (why) {
        found.push({ field: fieldNames[key] ?? key, message: why });
        break;
      }
    }
  }
  return found;
}

/**
 * For every route at once (`app.use('/v1/*', pathText)`): a path segment that decodes to a NUL or
 * is not UTF-8 answers 422 naming `path` before any route looks a task or project up by it (Postgres
 * refuses a NUL in a query parameter with an error, which would be a 500). Routes that validate
 * their parameters with valid('param', …) name the parameter itself.
 */
export const pathText = createMiddleware(async (c, next) => {
  // The path as it came: Hono's c.req.path is already decoded (decodeURI) where it could be.
  const url = c.req.url;
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  const rawPath = start < 0 ? '' : url.slice(start, end < 0 ? undefined : end);
  for (const segment of rawPath.split('/')) {
    if (!segment.includes('%')) continue;
    let why: string | null;
    try {
      why = textProblem(decodeURIComponent(segment));
    } catch {
      why = segment.match(/(?:%[0-9a-f]{2})+/gi)?.some((run) => {
        try {
          decodeURIComponent(run);
          return false;
        } catch {
          return true;
        }
      })
        ? `${UTF8_MESSAGE} (percent-encoded)`
        : null;
    }
    if (why) refuse([{ field: 'path', message: why }]);
  }
  await next();
});

/** The field names a schema declares (an object schema's shape), or null for any other schema. */
function declaredKeys(schema: z.ZodType): Set<string> | null {
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  return shape && typeof shape === 'object' ? new Set(Object.keys(shape).map((k) => k.toLowerCase())) : null;
}

/** Refuses bad text in a request part before its schema sees it. */
async function refuseBadText(c: Context, target: keyof ValidationTargets, schema: z.ZodType, fieldNames: Record<string, string>): Promise<void> {
  switch (target) {
    case 'json':
      if (checkedBodies.has(c.req.raw)) return;
      if (!JSON_TYPE.test(c.req.header('content-type')?.split(';')[0]?.trim() ?? '')) return;
      return refuse(findBadText(await c.req.json().catch(() => null)));
    case 'query':
      // Every parameter, also those the schema ignores: a bad one is a mistake worth naming.
      return refuse([...undecodableQuery(c.req.url), ...checkPairs(Object.entries(c.req.queries()), fieldNames)]);
    case 'param':
      return refuse(checkPairs(Object.entries(c.req.param() as Record<string, string>), fieldNames));
    case 'header': {
      // Only the headers the schema reads (Node's HTTP parser already refuses a NUL in any header).
      const keys = declaredKeys(schema);
      const headers = Object.entries(c.req.header()).filter(([k]) => !keys || keys.has(k.toLowerCase()));
      return refuse(checkPairs(headers, fieldNames));
    }
    default:
      return;
  }
}

/**
 * zValidator whose failures are DomainErrors; `fieldNames` renames paths (header names keep their
 * case). Bad text in the part it validates is refused first, with the same 422.
 */
export function valid<T extends keyof ValidationTargets, S extends z.ZodType>(target: T, schema: S, fieldNames: Record<string, string> = {}) {
  const check = zValidator(target, schema, (result) => {
    if (!result.success) throw validationError(result.error as unknown as z.ZodError, fieldNames);
  });
  const guarded: typeof check = async (c, next) => {
    await refuseBadText(c, target, schema, fieldNames);
    return check(c, next);
  };
  return guarded;
}

/** Header names as the caller writes them, for the paths zod reports (headers arrive lower-case). */
export const FIELD_NAMES: Record<string, string> = { 'idempotency-key': 'Idempotency-Key' };

/**
 * The defaultHook of every OpenAPIHono: a schema's refusal becomes the DomainError that
 * api/errors.ts answers as 422 validation_failed, exactly as valid() does.
 */
export function validationHook(result: { success: true } | { success: false; error: unknown }): void {
  if (!result.success) throw validationError(result.error as z.ZodError, FIELD_NAMES);
}

/**
 * Route middleware that refuses bad text in one request part before createRoute's validators (which
 * run after the route's middleware) hand it to the schema: valid()'s first step, on its own.
 */
export function textGuard(target: 'query' | 'header', schema: z.ZodType, fieldNames: Record<string, string> = FIELD_NAMES) {
  return createMiddleware(async (c, next) => {
    await refuseBadText(c, target, schema, fieldNames);
    await next();
  });
}
