// The record of callback attempts, one row each, listed by GET /v1/tasks/:id/deliveries.
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { deliveries, type DeliveryRow } from '../../db/schema.js';
import { storableOrNull } from '../../model/storable.js';
import { newId } from '../../platform/crypto.js';

// Retries span at most CALLBACK_RETRY_WINDOW_MS, so one event has tens of attempts, not thousands.
const MAX_DELIVERIES_LISTED = 500;

export interface DeliveryRecord {
  taskId: string;
  event: string;
  webhookId: string;
  attempt: number;
  statusCode?: number | null | undefined;
  latencyMs?: number | undefined;
  error?: string | undefined;
  nextAttemptAt?: Date | undefined;
}

export async function recordDelivery(db: Db, r: DeliveryRecord): Promise<void> {
  await db.insert(deliveries).values({
    id: newId('dlv'),
    taskId: r.taskId,
    event: r.event,
    webhookId: r.webhookId,
    attempt: r.attempt,
    statusCode: r.statusCode ?? null,
    latencyMs: r.latencyMs ?? null,
    // A receiver's or the network's words: made storable (model/storable.ts).
    error: storableOrNull(r.error),
    nextAttemptAt: r.nextAttemptAt ?? null,
  });
}

export async function listDeliveries(db: Db, taskId: string): Promise<DeliveryRow[]> {
  return db.select().from(deliveries).where(eq(deliveries.taskId, taskId)).orderBy(asc(deliveries.createdAt), asc(deliveries.attempt)).limit(MAX_DELIVERIES_LISTED);
}

export function deliveryJson(d: DeliveryRow) {
  return {
    delivery_id: d.id,
    channel: d.channel,
    recipient: d.recipient,
    // A callback's attempt delivered when the receiver answered 2xx.
    result: d.result ?? (d.error === null && d.statusCode !== null && d.statusCode >= 200 && d.statusCode < 300 ? 'delivered' : 'failed'),
    event: d.event,
    webhook_id: d.webhookId,
    attempt: d.attempt,
    status_code: d.statusCode,
    latency_ms: d.latencyMs,
    error: d.error,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
  };
}
