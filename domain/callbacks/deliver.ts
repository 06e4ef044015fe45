// One signed POST of a callback and what its answer means (docs/notifications.md): 2xx ends delivery; 5xx,
// 408, 429, timeouts and network errors are retried with exponential backoff and jitter
// (Retry-After honoured); 3xx (never followed) and other 4xx stop at once.
import { Agent, request } from 'undici';
import { parseRetryAfter } from '../../platform/http.js';
import { guardedLookup } from '../source/hosts.js';

// Receivers are few and slow ones must not tie up the source pool: their own small pool.
// undici's request() never follows redirects, which is what the spec asks of webhooks.
const agent = new Agent({ connect: { lookup: guardedLookup }, keepAliveTimeout: 4_000, connections: 16 });

export interface Attempt {
  statusCode: number | null;
  latencyMs: number;
  error?: string;
  /** The address was refused by the metadata/link-local guard. */
  blocked?: boolean;
  retryAfterMs?: number;
}

export async function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<Attempt> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const res = await request(url, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'download-center/0.1', ...headers },
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    // The answer's body carries nothing we act on; read a little so the connection can be reused.
    await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
    return { statusCode: res.statusCode, latencyMs: latency(), retryAfterMs: parseRetryAfter(res.headers['retry-after']) };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const timedOut = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT';
    const error = timedOut ? `no answer within ${timeoutMs} ms` : `${e.code ?? e.name}: ${e.message}`;
    return { statusCode: null, latencyMs: latency(), error, blocked: e.code === 'EBLOCKED' };
  }
}

export type Verdict = 'delivered' | 'retry' | 'stop';

export function verdict(a: Attempt): Verdict {
  if (a.statusCode === null) return a.blocked ? 'stop' : 'retry';
  if (a.statusCode >= 200 && a.statusCode < 300) return 'delivered';
  if (a.statusCode >= 500 || a.statusCode === 429 || a.statusCode === 408) return 'retry';
  return 'stop';
}

/** Why a stopped attempt is not retried, in words for the deliveries list. */
export function stopReason(a: Attempt): string {
  if (a.blocked) return 'the callback address is refused';
  return a.statusCode !== null && a.statusCode < 400 ? 'redirects are not followed' : 'the receiver refused it';
}

/** Exponential backoff with "equal jitter": half the step fixed, half random, never below Retry-After. */
export function backoffMs(attempt: number, initialMs: number, maxMs: number, retryAfterMs?: number): number {
  const step = Math.min(maxMs, initialMs * 2 ** Math.min(attempt - 1, 30));
  const jittered = Math.round(step / 2 + Math.random() * (step / 2));
  return Math.max(jittered, retryAfterMs ?? 0);
}
