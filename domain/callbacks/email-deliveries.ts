// The record of a task's e-mails in `deliveries` (channel `email`), and the claim that keeps one
// mail from being sent twice (docs/adr/0031-task-emails.md): an attempt inserts its row as
// `sending` before it opens the SMTP connection, and a unique index lets only one row of a
// Message-ID be sending, delivered or unknown. A row left `sending` by a worker that died mid-send
// is never sent again: the next attempt marks it `unknown` and stops.
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { deliveries } from '../../db/schema.js';
import { storableOrNull, storableText } from '../../model/storable.js';
import { newId } from '../../platform/crypto.js';

export interface EmailAttempt {
  taskId: string;
  event: string;
  messageId: string;
  recipient: string;
  attempt: number;
}

export type Claim =
  /** This attempt holds the mail: send it, then finish its row. */
  | { kind: 'claimed'; deliveryId: string }
  /** An earlier attempt delivered it. */
  | { kind: 'delivered' }
  /** An earlier attempt stopped mid-send (now or before): whether it arrived is unknown; not sent again. */
  | { kind: 'unknown' }
  /** Another attempt claimed it at this very moment (a timed-out attempt still running). */
  | { kind: 'busy' };

const HELD = ['sending', 'delivered', 'unknown'] as const;

export async function claimEmail(db: Db, a: EmailAttempt): Promise<Claim> {
  const [held] = await db
    .select({ id: deliveries.id, result: deliveries.result })
    .from(deliveries)
    .where(and(eq(deliveries.channel, 'email'), eq(deliveries.webhookId, a.messageId), inArray(deliveries.result, [...HELD])));
  if (held?.result === 'delivered') return { kind: 'delivered' };
  if (held?.result === 'unknown') return { kind: 'unknown' };
  if (held) {
    // Its attempt ended without a word (the worker died, or its time ran out mid-send).
    await db
      .update(deliveries)
      .set({ result: 'unknown', error: 'the attempt stopped while sending (worker stopped or timed out); whether the mail arrived is unknown, so it is not sent again' })
      .where(and(eq(deliveries.id, held.id), eq(deliveries.result, 'sending')));
    return { kind: 'unknown' };
  }
  const deliveryId = newId('dlv');
  const [row] = await db
    .insert(deliveries)
    .values({ id: deliveryId, taskId: a.taskId, channel: 'email', recipient: a.recipient, result: 'sending', event: a.event, webhookId: a.messageId, attempt: a.attempt })
    .onConflictDoNothing()
    .returning({ id: deliveries.id });
  return row ? { kind: 'claimed', deliveryId } : { kind: 'busy' };
}

export interface EmailOutcome {
  /** `unknown`: the connection broke after it was open; the mail may have arrived, so the claim stays. */
  result: 'delivered' | 'failed' | 'unknown';
  statusCode?: number | undefined;
  latencyMs?: number | undefined;
  error?: string | undefined;
  nextAttemptAt?: Date | undefined;
}

/**
 * The claimed attempt's outcome; a failed one releases the claim, so a later attempt may send. An
 * attempt that ran past its timeout finds its row already `unknown` (the next attempt marked it):
 * then only `delivered` replaces that; a late failure must not release a claim nobody will retry.
 */
export async function finishEmail(db: Db, deliveryId: string, o: EmailOutcome): Promise<void> {
  const mine = o.result === 'delivered' ? inArray(deliveries.result, ['sending', 'unknown']) : eq(deliveries.result, 'sending');
  await db
    .update(deliveries)
    .set({ result: o.result, statusCode: o.statusCode ?? null, latencyMs: o.latencyMs ?? null, error: storableOrNull(o.error), nextAttemptAt: o.nextAttemptAt ?? null })
    .where(and(eq(deliveries.id, deliveryId), mine));
}

/** An attempt that never got to send (a refused address, no SMTP server): a failed row of its own. */
export async function recordEmailFailure(db: Db, a: EmailAttempt, error: string): Promise<void> {
  await db.insert(deliveries).values({ id: newId('dlv'), taskId: a.taskId, channel: 'email', recipient: a.recipient, result: 'failed', event: a.event, webhookId: a.messageId, attempt: a.attempt, error: storableText(error) });
}
