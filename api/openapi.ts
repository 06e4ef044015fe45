// The pieces every route definition shares: the sub-app class (whose validation failures become our
// 422 through validationHook), the security requirements, and the documented answers (JSON, files,
// the error envelope). The document itself is put together in openapi-document.ts.
import { type RouteConfig, OpenAPIHono, z } from '@hono/zod-openapi';
import type { Env, MiddlewareHandler } from 'hono';
import { API_ERROR_CODES, type ApiErrorCode } from '../model/errors.js';
import { STATUS } from './errors.js';
import { errorEnvelope } from './schemas/responses.js';
import { jsonBody, textGuard, validationHook } from './validate.js';

/** An OpenAPIHono whose schema refusals go through api/errors.ts like any DomainError. */
export function openApiApp<E extends Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({ defaultHook: validationHook });
}

/** Security requirements, named as in components.securitySchemes (openapi-document.ts). */
type Security = Array<Record<string, string[]>>;
export const auth: Record<'project' | 'projectOrOperator' | 'admin' | 'projectOrAdmin' | 'none', Security> = {
  project: [{ projectKey: [] }],
  /** Also an operator session's token, limited to its operator's tasks (middleware/operator.ts). */
  projectOrOperator: [{ projectKey: [] }, { operatorToken: [] }],
  admin: [{ adminToken: [] }],
  projectOrAdmin: [{ projectKey: [] }, { adminToken: [] }],
  none: [],
};

/**
 * Documented answers, typed loosely on purpose: @hono/zod-openapi would otherwise demand that each
 * handler returns exactly the documented JSON, which file streams and error throws cannot; the
 * client's end-to-end tests hold the documented shapes to the real answers instead.
 */
export type Responses = RouteConfig['responses'];

type Headers = Record<string, { description: string; schema: { type: 'string' | 'integer' } }>;

export const json = (schema: z.ZodType, description: string, headers?: Headers) => ({
  description,
  content: { 'application/json': { schema } },
  ...(headers ? { headers } : {}),
});

const binary = { type: 'string' as const, format: 'binary' };
/** A file answer: CSV (or TSV), an xlsx workbook, JSON Lines, Parquet, a compressed file, or a zip of parts. */
export const file = (description: string, headers: Headers = {}) => ({
  description,
  headers: {
    'Content-Disposition': { description: "attachment; filename*=UTF-8''<name>", schema: { type: 'string' as const } },
    ...headers,
  },
  content: {
    'text/csv': { schema: binary },
    'text/tab-separated-values': { schema: binary },
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: binary },
    'application/jsonl': { schema: binary },
    'application/vnd.apache.parquet': { schema: binary },
    'application/gzip': { schema: binary },
    'application/zstd': { schema: binary },
    'application/zip': { schema: binary },
  },
});

/**
 * What an error status means, in a sentence. The codes it carries are not written here: each
 * answer's description lists them from STATUS (api/errors.ts), so a code added there is documented.
 */
const MEANING: Record<number, string> = {
  400: 'The body is not JSON, or the request is malformed.',
  401: 'No key or an unknown one; WWW-Authenticate: Bearer.',
  403: 'The key may not do this (an operator token: anything beyond its own tasks and permissions), or a tampered link.',
  404: "Not found, also for another project's resource.",
  409: 'The resource is in a state that does not allow this.',
  410: 'The files expired.',
  413: 'The body is larger than MAX_BODY_BYTES.',
  422: 'A field out of range or missing (details[].field names it), a refused host, or a request that cannot be carried out as asked.',
  426: 'Not a WebSocket upgrade.',
  429: "Over the project's submit rate (rate_limited; Retry-After, RateLimit-Policy and RateLimit set), or a project quota reached (quota_exceeded; error.quota names it, its use and when it resets).",
  500: 'It failed on our side; the message says no more, the log has the details.',
  502: "The source, or the customer's bucket, failed or answered badly.",
  503: 'Not available now (a dependency unreachable, the process shutting down or full); try again later, after Retry-After when set.',
};

/** The codes api/errors.ts answers with at this status. */
export function codesOf(status: number): ApiErrorCode[] {
  return API_ERROR_CODES.filter((c) => STATUS[c] === status);
}

/** One error answer: its meaning (the status's own unless a route says more), then every code of its status. */
export function errorAnswer(status: number, meaning = MEANING[status]) {
  const codes = codesOf(status);
  if (meaning === undefined || codes.length === 0) throw new Error(`no error answer is known for status ${status}`);
  return { description: `${meaning} Codes answered with ${status}: ${codes.join(', ')}.`, content: { 'application/json': { schema: errorEnvelope } } };
}

/** The error envelope under each of these statuses. */
export function errors(...statuses: number[]): Responses {
  return Object.fromEntries(statuses.map((s) => [String(s), errorAnswer(s)]));
}

/**
 * The statuses a route that runs an export inline (preview, sync) answers a failed export with,
 * besides its own: 422 the data (or a request the export refuses), 502 the source, 500 ours.
 */
export function exportErrors(...more: number[]): Responses {
  return {
    ...errors(...more),
    422: errorAnswer(422, `${MEANING[422]} Or the export, as asked, cannot be made of this data (render_failed: a value that does not fit its column's type, the message naming row and column).`),
    502: errorAnswer(502, "The source failed or answered badly (template_invalid: the source's own template)."),
    500: errorAnswer(500, 'The export failed on our side; the message says no more, the log has the details.'),
  };
}

/** The errors of any call with a key: refused key, and bad text in the path. */
export const keyed = [401, 403, 422];

export const rateHeaders: Headers = {
  'RateLimit-Policy': { description: 'IETF httpapi-ratelimit-headers: "submit";q=<per minute>;w=60', schema: { type: 'string' } },
  RateLimit: { description: '"submit";r=<remaining>;t=<seconds to reset>', schema: { type: 'string' } },
};

export const taskIdParam = z.object({ task_id: z.string().openapi({ description: 'A task of the caller\'s project (tsk_…).' }) });
export const projectIdParam = z.object({ project_id: z.string().openapi({ description: 'prj_…' }) });
export const operatorSessionIdParam = z.object({ session_id: z.string().openapi({ description: 'ops_…' }) });
export const destinationIdParam = z.object({ destination_id: z.string().openapi({ description: 'dst_…' }) });
export const scheduleIdParam = z.object({ schedule_id: z.string().openapi({ description: 'sch_…' }) });

/**
 * What a route reading a query string declares: the guard that refuses text no field may hold
 * (before zod, so the answer names the field) and the schema. `before` runs first (adminOnly).
 */
export function queryOf<S extends z.ZodObject>(schema: S, ...before: MiddlewareHandler[]) {
  return { middleware: [...before, textGuard('query', schema)], request: { query: schema } };
}

/** What a route taking one JSON object declares: the body reader (size, UTF-8) and the schema. */
export function jsonBodyOf<S extends z.ZodType>(schema: S, ...before: MiddlewareHandler[]) {
  return { middleware: [...before, jsonBody], request: { body: { content: { 'application/json': { schema } }, required: true } } };
}
