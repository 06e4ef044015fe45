// One GET of the business system's paginated source, with the error classification the design
// asks for: network trouble, 5xx and 429 are transient (retried by Temporal with backoff, honouring
// Retry-After); 4xx, malformed JSON and a wrong shape are permanent and fail the task at once.
import { Agent, request } from 'undici';
import { guardedLookup } from './hosts.js';
import { permanent, transient } from '../../model/errors.js';
import { parseRetryAfter } from '../../platform/http.js';

export interface SourcePage {
  total: number;
  data: unknown[];
  template?: unknown;
  header?: unknown;
  footer?: unknown;
}

export interface SourceClientOptions {
  timeoutMs: number;
  maxBytes: number;
}

// One keep-alive pool per process; the connector re-checks every resolved address (lib/hosts.ts).
const agent = new Agent({ connect: { lookup: guardedLookup }, keepAliveTimeout: 10_000, connections: 64 });

// A source asking for a longer pause is treated as asking for this one; the retry budget does the rest.
const MAX_RETRY_AFTER_MS = 600_000;

export function pageUrl(sourceUrl: string, page: number, pageSize: number): string {
  const url = new URL(sourceUrl);
  url.searchParams.set('page', String(page));
  url.searchParams.set('page_size', String(pageSize));
  return url.toString();
}

export async function getPage(
  sourceUrl: string,
  page: number,
  pageSize: number,
  opts: SourceClientOptions,
  signal?: AbortSignal,
): Promise<SourcePage> {
  const url = pageUrl(sourceUrl, page, pageSize);
  const where = `page ${page} (page_size ${pageSize})`;
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      dispatcher: agent,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'download-center/0.1' },
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      signal,
    });
  } catch (err) {
    // A cancelled activity must end as cancelled (its signal's reason), not as a retryable error.
    if (signal?.aborted) throw signal.reason ?? err;
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EBLOCKED') throw permanent('source_unreachable', `source refused: ${e.message}`);
    throw transient('source_unreachable', `source did not answer ${where}: ${e.code ?? e.message}`);
  }
  const { statusCode } = res;
  if (statusCode >= 500 || statusCode === 429 || statusCode === 408) {
    await res.body.dump();
    throw transient('source_unreachable', `source answered HTTP ${statusCode} for ${where}`, parseRetryAfter(res.headers['retry-after'], MAX_RETRY_AFTER_MS));
  }
  if (statusCode !== 200) {
    await res.body.dump();
    throw permanent('source_bad_response', `source answered HTTP ${statusCode} for ${where}; expected 200 with JSON`);
  }
  const text = await readLimited(res.body, opts.maxBytes, where).catch((err: unknown) => {
    throw signal?.aborted ? (signal.reason ?? err) : err;
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw permanent('source_bad_response', `source answered malformed JSON for ${where}`);
  }
  return checkShape(json, where);
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }, maxBytes: number, where: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxBytes) {
        body.destroy();
        throw permanent('source_bad_response', `source answer for ${where} is larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof Error && err.name === 'ApplicationFailure') throw err;
    throw transient('source_unreachable', `source connection broke while reading ${where}: ${(err as Error).message}`);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function checkShape(json: unknown, where: string): SourcePage {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw permanent('source_bad_response', `source answer for ${where} is not a JSON object`);
  }
  const o = json as Record<string, unknown>;
  if (typeof o.total !== 'number' || !Number.isSafeInteger(o.total) || o.total < 0) {
    throw permanent('source_bad_response', `source answer for ${where} has no valid "total" (a whole number ≥ 0)`);
  }
  if (!Array.isArray(o.data)) {
    throw permanent('source_bad_response', `source answer for ${where} has no "data" array`);
  }
  const bad = o.data.findIndex((r) => typeof r !== 'object' || r === null);
  if (bad >= 0) throw permanent('source_bad_response', `source answer for ${where}: data[${bad}] is not an object or array`);
  return { total: o.total, data: o.data, template: o.template, header: o.header, footer: o.footer };
}
