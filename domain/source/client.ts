// One GET of the business system's paginated source, with the error classification the design
// asks for: network trouble, 5xx and 429 are transient (retried by Temporal with backoff, honouring
// Retry-After); 4xx, malformed JSON and a wrong shape are permanent and fail the task at once.
import { Agent, type Dispatcher } from 'undici';
import { guardedLookup } from './hosts.js';
import { DomainError } from '../errors.js';
import { parseRetryAfter } from '../../platform/http.js';
import type { Config } from '../../platform/config.js';
import { rateGuard } from './rate-guard.js';

export interface SourcePage {
  total: number;
  data: unknown[];
  template?: unknown;
  header?: unknown;
  footer?: unknown;
}

export interface SourceClientOptions {
  /** Idle limit of each phase: waiting for the headers, and between two chunks of the body (SOURCE_TIMEOUT_MS). */
  timeoutMs: number;
  /** The whole request, headers and body together (SOURCE_REQUEST_DEADLINE_MS): a trickling body cannot run on. */
  deadlineMs: number;
  maxBytes: number;
  /**
   * The slowest body accepted (SOURCE_MIN_BYTES_PER_SECOND, 0: none), measured over each
   * `rateWindowMs` (SOURCE_RATE_WINDOW_MS) from the headers on: a stalled body fails long before the deadline.
   */
  minBytesPerSecond?: number;
  rateWindowMs?: number;
  /** Told every chunk's size as it arrives; throws to stop the body (a preview's byte budget). */
  onBytes?: (bytes: number) => void;
}

type ClientConfig = Pick<Config, 'SOURCE_TIMEOUT_MS' | 'SOURCE_REQUEST_DEADLINE_MS' | 'SOURCE_MAX_PAGE_BYTES' | 'SOURCE_MIN_BYTES_PER_SECOND' | 'SOURCE_RATE_WINDOW_MS'>;

/** The request limits the configuration sets (the API's previews and the worker's exports alike). */
export function sourceClientOptions(config: ClientConfig): SourceClientOptions {
  return {
    timeoutMs: config.SOURCE_TIMEOUT_MS,
    deadlineMs: config.SOURCE_REQUEST_DEADLINE_MS,
    maxBytes: config.SOURCE_MAX_PAGE_BYTES,
    minBytesPerSecond: config.SOURCE_MIN_BYTES_PER_SECOND,
    rateWindowMs: config.SOURCE_RATE_WINDOW_MS,
  };
}

// One keep-alive pool per process; the connector re-checks every resolved address (domain/source/hosts.ts).
const agent = new Agent({ connect: { lookup: guardedLookup }, keepAliveTimeout: 10_000, connections: 64 });

// A source asking for a longer pause is treated as asking for this one; the retry budget does the rest.
const MAX_RETRY_AFTER_MS = 600_000;

/** Where one page request goes: the origin, and the request target exactly as it is sent. */
export interface PageTarget {
  origin: string;
  path: string;
}

// What a request target may not hold as it is: controls, space, DEL, non-ASCII (sent as UTF-8
// escapes), and the three characters the WHATWG URL parser escapes in a query too.
const NOT_IN_TARGET = /[\u0000-\u0020"<>\u007f-\uffff]+/g;
// Tab and newlines anywhere, and controls or spaces at either end, are dropped by every URL parser.
const URL_NOISE = /[\t\n\r]|^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const encodeTargetChars = (s: string) => s.replace(NOT_IN_TARGET, (run) => encodeURIComponent(run.replace(LONE_SURROGATE, '\ufffd')));

/** A query segment of ours: the raw key (before `=`, or the whole bare segment) is `page` or `page_size`. */
function isPagingParam(segment: string): boolean {
  const eq = segment.indexOf('=');
  const key = eq < 0 ? segment : segment.slice(0, eq);
  return key === 'page' || key === 'page_size';
}

/**
 * The request for one page (docs/api.md#the-source-protocol: page and page_size added).
 * The source's own query is kept byte for byte — order, `%20` and `+`, `~`, bare flags — so a source
 * that signs its query string can check it; only `page` and `page_size` segments already present
 * are removed, and the fresh ones appended. The fragment is not sent. The origin comes from the
 * WHATWG parser (the one the allow-list check used); the path and query are never re-serialised.
 */
export function pageTarget(sourceUrl: string, page: number, pageSize: number): PageTarget {
  const url = new URL(sourceUrl);
  const raw = sourceUrl.replace(URL_NOISE, '');
  const hash = raw.indexOf('#');
  const noFragment = hash < 0 ? raw : raw.slice(0, hash);
  // The authority ends at the first '/', '?' or '#' (or '\\', which special URLs read as '/').
  const afterScheme = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\\]*/i.exec(noFragment);
  const rest = afterScheme ? noFragment.slice(afterScheme[0].length) : '';
  const q = rest.indexOf('?');
  let path = q < 0 ? rest : rest.slice(0, q);
  // An odd path (backslashes, no authority match) is sent as the parser understood it.
  if (!afterScheme || path.includes('\\')) path = url.pathname;
  if (path === '') path = '/';
  const query = q < 0 ? '' : rest.slice(q + 1);
  const kept = query === '' ? [] : query.split('&').filter((segment) => !isPagingParam(segment));
  kept.push(`page=${page}`, `page_size=${pageSize}`);
  return { origin: url.origin, path: encodeTargetChars(`${path}?${kept.join('&')}`) };
}

/** The page's URL as text (for messages and tests): origin and request target as sent. */
export function pageUrl(sourceUrl: string, page: number, pageSize: number): string {
  const { origin, path } = pageTarget(sourceUrl, page, pageSize);
  return origin + path;
}

/** Why a request's combined signal fired: the activity was cancelled, or the deadline passed. */
class DeadlinePassed extends Error {
  override name = 'DeadlinePassed';
}

export async function getPage(
  sourceUrl: string,
  page: number,
  pageSize: number,
  opts: SourceClientOptions,
  signal?: AbortSignal,
): Promise<SourcePage> {
  return parsePage(await getPageBytes(sourceUrl, page, pageSize, opts, signal), pageWhere(page, pageSize));
}

/** How messages name a page. */
export const pageWhere = (page: number, pageSize: number) => `page ${page} (page_size ${pageSize})`;

/**
 * The page's body as bytes, not parsed: a CSV export decodes and encodes pages on another thread
 * (domain/staging/page-encoder.ts), so the request's thread only moves bytes.
 */
export async function getPageBytes(
  sourceUrl: string,
  page: number,
  pageSize: number,
  opts: SourceClientOptions,
  signal?: AbortSignal,
): Promise<Buffer> {
  const target = pageTarget(sourceUrl, page, pageSize);
  const where = pageWhere(page, pageSize);
  // The deadline covers connecting, the headers and the whole body; SOURCE_TIMEOUT_MS stays the idle limit of each.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DeadlinePassed()), opts.deadlineMs);
  const rate = rateGuard(opts);
  const both = AbortSignal.any([...(signal ? [signal] : []), deadline.signal, rate.signal]);
  /** What an error becomes: cancellation stays cancellation, a passed deadline a transient error. */
  const translate = (err: unknown, fallback: () => unknown): unknown => {
    if (signal?.aborted) return signal.reason ?? err;
    if (deadline.signal.aborted) {
      return DomainError.transient('source_unreachable', `source did not finish answering ${where} within ${opts.deadlineMs} ms (SOURCE_REQUEST_DEADLINE_MS)`);
    }
    if (rate.signal.aborted) return DomainError.transient('source_unreachable', rate.message(where));
    return fallback();
  };
  try {
    let res: Dispatcher.ResponseData;
    try {
      // agent.request takes the target as given; undici's request(url) would re-serialise it through new URL().
      res = await agent.request({
        origin: target.origin,
        path: target.path,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'download-center/0.1' },
        headersTimeout: opts.timeoutMs,
        bodyTimeout: opts.timeoutMs,
        signal: both,
      });
    } catch (err) {
      throw translate(err, () => {
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'EBLOCKED') return new DomainError('source_unreachable', `source refused: ${e.message}`);
        return DomainError.transient('source_unreachable', `source did not answer ${where}: ${e.code ?? e.message}`);
      });
    }
    const { statusCode } = res;
    if (statusCode >= 500 || statusCode === 429 || statusCode === 408) {
      await res.body.dump({ limit: 128 * 1024, signal: both }).catch(() => {});
      throw DomainError.transient('source_unreachable', `source answered HTTP ${statusCode} for ${where}`, parseRetryAfter(res.headers['retry-after'], MAX_RETRY_AFTER_MS));
    }
    if (statusCode !== 200) {
      await res.body.dump({ limit: 128 * 1024, signal: both }).catch(() => {});
      throw new DomainError('source_bad_response', `source answered HTTP ${statusCode} for ${where}; expected 200 with JSON`);
    }
    rate.start();
    const count = (bytes: number) => {
      rate.count(bytes);
      opts.onBytes?.(bytes);
    };
    return await readLimited(res.body, opts.maxBytes, where, count).catch((err: unknown) => {
      throw translate(err, () => err);
    });
  } finally {
    clearTimeout(timer);
    rate.stop();
  }
}

/** A page's body as the protocol's JSON object: malformed JSON and a wrong shape are permanent. */
export function parsePage(body: Buffer, where: string): SourcePage {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new DomainError('source_bad_response', `source answered malformed JSON for ${where}`);
  }
  return checkShape(json, where);
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number, where: string, count: (bytes: number) => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      try {
        count(chunk.length);
        if (size > maxBytes) throw new DomainError('source_bad_response', `source answer for ${where} is larger than ${maxBytes} bytes`);
      } catch (err) {
        body.destroy();
        throw err;
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw DomainError.transient('source_unreachable', `source connection broke while reading ${where}: ${(err as Error).message}`);
  }
  return Buffer.concat(chunks, size);
}

function checkShape(json: unknown, where: string): SourcePage {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new DomainError('source_bad_response', `source answer for ${where} is not a JSON object`);
  }
  const o = json as Record<string, unknown>;
  if (typeof o.total !== 'number' || !Number.isSafeInteger(o.total) || o.total < 0) {
    throw new DomainError('source_bad_response', `source answer for ${where} has no valid "total" (a whole number ≥ 0)`);
  }
  if (!Array.isArray(o.data)) {
    throw new DomainError('source_bad_response', `source answer for ${where} has no "data" array`);
  }
  const bad = o.data.findIndex((r) => typeof r !== 'object' || r === null);
  if (bad >= 0) throw new DomainError('source_bad_response', `source answer for ${where}: data[${bad}] is not an object or array`);
  return { total: o.total, data: o.data, template: o.template, header: o.header, footer: o.footer };
}

/** The kind of a failed request, for dc_source_request_errors_total; read from the sentences above. */
export function errorKind(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const status = /answered HTTP (\d{3})/.exec(message)?.[1];
  if (status) return status === '429' ? 'http_429' : status === '408' ? 'http_408' : status.startsWith('5') ? 'http_5xx' : 'http_4xx';
  if (message.includes('SOURCE_REQUEST_DEADLINE_MS')) return 'deadline';
  if (message.includes('SOURCE_MIN_BYTES_PER_SECOND')) return 'stalled';
  if (message.startsWith('source refused')) return 'blocked';
  if (/did not answer .*(TIMEOUT|ETIMEDOUT)/i.test(message)) return 'timeout';
  if (message.includes('did not answer') || message.includes('connection broke')) return 'network';
  if (message.includes('larger than')) return 'too_large';
  if (message.includes('malformed JSON')) return 'bad_json';
  return 'bad_shape';
}
