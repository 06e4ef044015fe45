// Callback delivery (CONTRACT §5): one signed POST per Temporal attempt of deliverCallback, run by
// workflows/callback.ts after the task is already final. 2xx ends it; 5xx, 408, 429, timeouts and
// network errors are retried with exponential backoff and jitter (Retry-After honoured) until
// CALLBACK_RETRY_WINDOW_MS; 3xx (never followed) and other 4xx stop at once. Every attempt is a
// row in `deliveries`.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { eq } from 'drizzle-orm';
import { Agent, request } from 'undici';
import { taskJson } from '../api/serialize.js';
import { deliveries, projects } from '../db/schema.js';
import { getTask } from '../db/tasks.js';
import { newId } from '../lib/crypto.js';
import { checkOutgoingUrl, guardedLookup } from '../lib/hosts.js';
import { webhookHeaders } from '../lib/webhooks.js';
import type { ActivityDeps } from './deps.js';

export type CallbackEvent = 'task.succeeded' | 'task.failed';

export interface DeliverInput {
  taskId: string;
  run: number;
  event: CallbackEvent;
  /** Standard Webhooks message id: the same on every attempt, so receivers can de-duplicate. */
  webhookId: string;
}

export interface DeliverOutput {
  delivered: boolean;
  attempt: number;
  statusCode: number | null;
  reason?: string;
}

/** Types of the non-retryable failures; workflows/callback.ts lists them for its retry policy. */
export const CALLBACK_STOP_TYPES = ['callback_rejected', 'callback_gave_up', 'callback_host_not_allowed'];

// Receivers are few and slow ones must not tie up the source pool: their own small pool.
// undici's request() never follows redirects, which is what the spec asks of webhooks.
const agent = new Agent({ connect: { lookup: guardedLookup }, keepAliveTimeout: 4_000, connections: 16 });

interface Attempt {
  statusCode: number | null;
  latencyMs: number;
  error?: string;
  blocked?: boolean;
  retryAfterMs?: number;
}

async function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<Attempt> {
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

export function parseRetryAfter(header: string | string[] | undefined): number | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

type Verdict = 'delivered' | 'retry' | 'stop';

export function verdict(a: Attempt): Verdict {
  if (a.statusCode === null) return a.blocked ? 'stop' : 'retry';
  if (a.statusCode >= 200 && a.statusCode < 300) return 'delivered';
  if (a.statusCode >= 500 || a.statusCode === 429 || a.statusCode === 408) return 'retry';
  return 'stop';
}

/** Exponential backoff with "equal jitter": half the step fixed, half random, never below Retry-After. */
export function backoffMs(attempt: number, initialMs: number, maxMs: number, retryAfterMs?: number): number {
  const step = Math.min(maxMs, initialMs * 2 ** Math.min(attempt - 1, 30));
  const jittered = Math.round(step / 2 + Math.random() * (step / 2));
  return Math.max(jittered, retryAfterMs ?? 0);
}

export function createNotifyActivities({ db, config, linkSecret }: ActivityDeps) {
  const signer = { baseUrl: config.publicBaseUrl, secret: linkSecret, ttlSeconds: config.LINK_TTL_SECONDS };

  return {
    async deliverCallback(input: DeliverInput): Promise<DeliverOutput> {
      const ctx = Context.current();
      const { attempt } = ctx.info;
      const task = await getTask(db, input.taskId);
      if (!task?.callback) return { delivered: false, attempt, statusCode: null, reason: 'the task has no callback' };
      // A retry of the task started a new run with its own callback; this one is moot.
      if (task.runs !== input.run) return { delivered: false, attempt, statusCode: null, reason: `superseded by run ${task.runs}` };
      const [project] = await db.select().from(projects).where(eq(projects.id, task.projectId));
      if (!project) return { delivered: false, attempt, statusCode: null, reason: 'the project no longer exists' };

      const record = (a: Partial<Attempt> & { nextAttemptAt?: Date }) =>
        db.insert(deliveries).values({
          id: newId('dlv'),
          taskId: task.id,
          event: input.event,
          webhookId: input.webhookId,
          attempt,
          statusCode: a.statusCode ?? null,
          latencyMs: a.latencyMs ?? null,
          error: a.error ?? null,
          nextAttemptAt: a.nextAttemptAt ?? null,
        });
      const stop = async (type: string, message: string, a: Partial<Attempt> = {}): Promise<never> => {
        await record({ ...a, error: message });
        throw ApplicationFailure.create({ type, message, nonRetryable: true });
      };

      // The allow-list may have changed since submission; it is checked again for every attempt.
      const target = checkOutgoingUrl(task.callback, project.callbackHosts);
      if (!target.ok) return stop('callback_host_not_allowed', `the callback host is no longer allowed (${target.reason})`);

      const body = JSON.stringify({ event: input.event, task: taskJson(task, signer) });
      const headers = webhookHeaders(project.webhookSecret, input.webhookId, body);
      const a = await post(target.url.toString(), body, headers, config.CALLBACK_TIMEOUT_MS, ctx.cancellationSignal);
      const v = verdict(a);
      if (v === 'delivered') {
        await record(a);
        return { delivered: true, attempt, statusCode: a.statusCode };
      }
      const what = a.error ?? `HTTP ${a.statusCode}`;
      if (v === 'stop') {
        const why = a.blocked ? 'the callback address is refused' : a.statusCode! < 400 ? 'redirects are not followed' : 'the receiver refused it';
        return stop('callback_rejected', `${what}: ${why}; not retried`, a);
      }
      const delay = backoffMs(attempt, config.CALLBACK_RETRY_INITIAL_MS, config.CALLBACK_RETRY_MAX_INTERVAL_MS, a.retryAfterMs);
      if (Date.now() + delay - ctx.info.scheduledTimestampMs > config.CALLBACK_RETRY_WINDOW_MS) {
        return stop('callback_gave_up', `${what}; gave up after ${attempt} attempts (retry window ${config.CALLBACK_RETRY_WINDOW_MS} ms)`, a);
      }
      await record({ ...a, error: what, nextAttemptAt: new Date(Date.now() + delay) });
      // BENIGN: an unreachable receiver is expected now and then; the worker logs it at debug only.
      throw ApplicationFailure.create({
        type: 'callback_failed',
        message: `${what}; next attempt in ${delay} ms`,
        nextRetryDelay: delay,
        category: ApplicationFailureCategory.BENIGN,
      });
    },
  };
}
