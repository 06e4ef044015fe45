// The record of a task's e-mails in `deliveries` (channel `email`), and the claim that keeps one
// mail from being sent twice (docs/adr/0031-task-emails.md): an attempt inserts its row as
// `sending` before it opens the SMTP connection, and a unique index lets only one row of a
// Message-ID be sending, delivered or unknown. Before the first byte of the message goes out the
// row is marked handed over (status_code 354, the server's go-ahead for the data). A row left
// `sending` by a worker that died is judged by that mark: without it nothing of the message was
// sent, so the row is released and the mail sent; with it the mail is never sent again (`unknown`).
import { and, eq, inArray, isNull } from 'drizzle-orm';
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
/** The mark of a `sending` row whose message is being handed over: the server's 354. */
export const HANDED_OVER = 354;

/**
 * A row its attempt left `sending` without a word (the worker died, or its time ran out): released
 * when the message was never handed over, so this attempt may send; else (or when its attempt
 * marks it at this very moment) it is `unknown`. Both updates are conditional on the same row,
 * so the release and the mark cannot both succeed.
 */
async function settleAbandoned(db: Db, id: string): Promise<'released' | 'unknown' | 'settled'> {
  const released = await db
    .update(deliveries)
    .set({ result: 'failed', error: 'the attempt stopped before the message was sent (worker stopped or timed out); sent by a later attempt' })
    .where(and(eq(deliveries.id, id), eq(deliveries.result, 'sending'), isNull(deliveries.statusCode)))
    .returning({ id: deliveries.id });
  if (released.length > 0) return 'released';
  const marked = await db
    .update(deliveries)
    .set({ result: 'unknown', error: 'the attempt stopped while sending the message (worker stopped or timed out); whether the mail arrived is unknown, so it is not sent again' })
    .where(and(eq(deliveries.id, id), eq(deliveries.result, 'sending')))
    .returning({ id: deliveries.id });
  // Neither matched: its attempt was alive after all and has just settled the row itself.
  return marked.length > 0 ? 'unknown' : 'settled';
}

export async function claimEmail(db: Db, a: EmailAttempt, again = true): Promise<Claim> {
  const [held] = await db
    .select({ id: deliveries.id, result: deliveries.result })
    .from(deliveries)
    .where(and(eq(deliveries.channel, 'email'), eq(deliveries.webhookId, a.messageId), inArray(deliveries.result, [...HELD])));
  if (held?.result === 'delivered') return { kind: 'delivered' };
  if (held?.result === 'unknown') return { kind: 'unknown' };
  if (held) {
    const settled = await settleAbandoned(db, held.id);
    if (settled === 'unknown') return { kind: 'unknown' };
    // Read again what that attempt recorded (delivered, failed: this one may send); once only.
    if (settled === 'settled') return again ? claimEmail(db, a, false) : { kind: 'busy' };
  }
  const deliveryId = newId('dlv');
  const [row] = await db
    .insert(deliveries)
    .values({ id: deliveryId, taskId: a.taskId, channel: 'email', recipient: a.recipient, result: 'sending', event: a.event, webhookId: a.messageId, attempt: a.attempt })
    .onConflictDoNothing()
    .returning({ id: deliveries.id });
  return row ? { kind: 'claimed', deliveryId } : { kind: 'busy' };
}

/**
 * Marks the claimed row handed over, just before the message's first byte goes out; false when the
 * claim is no longer this attempt's (a later attempt released it): then nothing may be sent.
 */
export async function markHandedOver(db: Db, deliveryId: string): Promise<boolean> {
  const marked = await db
    .update(deliveries)
    .set({ statusCode: HANDED_OVER })
    .where(and(eq(deliveries.id, deliveryId), eq(deliveries.result, 'sending')))
    .returning({ id: deliveries.id });
  return marked.length > 0;
}

export interface EmailOutcome {
  /** `unknown`: the message was handed over and no reply came; it may have arrived, so the claim stays. */
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
    .set({
      result: o.result,
      // An unknown mail keeps its mark (354: the message was being handed over) when it has one.
      ...(o.result === 'unknown' && o.statusCode === undefined ? {} : { statusCode: o.statusCode ?? null }),
      latencyMs: o.latencyMs ?? null,
      error: storableOrNull(o.error),
      nextAttemptAt: o.nextAttemptAt ?? null,
    })
    .where(and(eq(deliveries.id, deliveryId), mine));
}

/** An attempt that never got to send (a refused address, no SMTP server): a failed row of its own. */
export async function recordEmailFailure(db: Db, a: EmailAttempt, error: string): Promise<void> {
  await db.insert(deliveries).values({ id: newId('dlv'), taskId: a.taskId, channel: 'email', recipient: a.recipient, result: 'failed', event: a.event, webhookId: a.messageId, attempt: a.attempt, error: storableText(error) });
}
