// One attempt of a signed POST (Standard Webhooks), recorded in `deliveries`, with the retry rules of
// domain/callbacks/deliver.ts: delivered on a 2xx, stopped on an answer no retry mends, else retried
// with backoff (and Retry-After) until CALLBACK_RETRY_WINDOW_MS has passed. A task's callback
// (activities/notify.ts) and a schedule's schedule.paused event (activities/schedule-alerts.ts) go through here.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Db } from '../db/client.js';
import { type Attempt, backoffMs, post, stopReason, verdict } from '../domain/callbacks/deliver.js';
import { recordDelivery } from '../domain/callbacks/deliveries.js';
import { webhookHeaders } from '../domain/callbacks/webhooks.js';
import type { DeliverOutput } from '../model/activities.js';
import type { Config } from '../platform/config.js';
import { metrics } from '../platform/metrics.js';

interface OnePost {
  /** The task whose deliveries record the attempts, and the project counted in the metrics. */
  taskId: string;
  projectId: string;
  event: string;
  webhookId: string;
  /** The receiver, already checked against the project's callback_hosts (null: no longer allowed, `why`). */
  url: string | null;
  why?: string;
  body: string;
  secrets: readonly string[];
}

type PostConfig = Pick<Config, 'CALLBACK_TIMEOUT_MS' | 'CALLBACK_RETRY_INITIAL_MS' | 'CALLBACK_RETRY_MAX_INTERVAL_MS' | 'CALLBACK_RETRY_WINDOW_MS'>;

export async function postOnce(db: Db, config: PostConfig, p: OnePost): Promise<DeliverOutput> {
  const ctx = Context.current();
  const { attempt } = ctx.info;
  const record = (a: Partial<Attempt> & { nextAttemptAt?: Date }) => recordDelivery(db, { taskId: p.taskId, event: p.event, webhookId: p.webhookId, attempt, ...a });
  const counted = (result: string) => metrics.callbackDeliveries.inc({ project_id: p.projectId, result });
  const stop = async (type: string, message: string, a: Partial<Attempt> = {}): Promise<never> => {
    await record({ ...a, error: message });
    counted(type === 'callback_gave_up' ? 'gave_up' : type === 'callback_host_not_allowed' ? 'host_not_allowed' : 'rejected');
    throw ApplicationFailure.create({ type, message, nonRetryable: true });
  };
  // The allow-list may have changed since the URL was given; it is checked again for every attempt.
  if (!p.url) return stop('callback_host_not_allowed', `the callback host is no longer allowed (${p.why ?? 'not_allowed'})`);

  const headers = webhookHeaders(p.secrets, p.webhookId, p.body);
  const a = await post(p.url, p.body, headers, config.CALLBACK_TIMEOUT_MS, ctx.cancellationSignal);
  const v = verdict(a);
  if (v === 'delivered') {
    await record(a);
    counted('delivered');
    return { delivered: true, attempt, statusCode: a.statusCode };
  }
  const what = a.error ?? `HTTP ${a.statusCode}`;
  if (v === 'stop') return stop('callback_rejected', `${what}: ${stopReason(a)}; not retried`, a);
  const delay = backoffMs(attempt, config.CALLBACK_RETRY_INITIAL_MS, config.CALLBACK_RETRY_MAX_INTERVAL_MS, a.retryAfterMs);
  if (Date.now() + delay - ctx.info.scheduledTimestampMs > config.CALLBACK_RETRY_WINDOW_MS) {
    return stop('callback_gave_up', `${what}; gave up after ${attempt} attempts (retry window ${config.CALLBACK_RETRY_WINDOW_MS} ms)`, a);
  }
  await record({ ...a, error: what, nextAttemptAt: new Date(Date.now() + delay) });
  counted('retry');
  // BENIGN: an unreachable receiver is expected now and then; the worker logs it at debug only.
  throw ApplicationFailure.create({
    type: 'callback_failed',
    message: `${what}; next attempt in ${delay} ms`,
    nextRetryDelay: delay,
    category: ApplicationFailureCategory.BENIGN,
  });
}
