// One e-mail to one recipient, at most once (docs/adr/0031-task-emails.md): checked against the
// project's email_domains, claimed in `deliveries` before the SMTP connection opens, handed over,
// and its outcome recorded; a failure is retried by Temporal with the wait it asks for. A task's
// end mails (activities/email.ts) and a schedule's pause alert (activities/schedule-alerts.ts) both go through here.
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Db } from '../db/client.js';
import { claimEmail, type EmailAttempt, finishEmail, markHandedOver, recordEmailFailure } from '../domain/callbacks/email-deliveries.js';
import { emailDomainAllowed, type MailContent } from '../domain/callbacks/email-message.js';
import { EMAIL_MAX_ATTEMPTS, type SendEmailOutput } from '../model/activities.js';
import type { Config } from '../platform/config.js';
import { sendFailure, sendMail } from '../platform/mailer.js';

const RETRY_INITIAL_MS = 10_000;
const RETRY_MAX_MS = 30 * 60_000;

/** The wait after a failed attempt: doubling from 10 s up to 30 minutes (72.5 min over 10 attempts). */
const emailRetryDelay = (attempt: number): number => Math.min(RETRY_INITIAL_MS * 2 ** (attempt - 1), RETRY_MAX_MS);

interface OneMail {
  attempt: EmailAttempt;
  /** The project's email_domains as they are now: the address is checked again before every send. */
  domains: readonly string[];
  /** The message; built only by the attempt that holds the claim (it may make a link). */
  build: () => Promise<MailContent>;
}

export async function mailOnce(db: Db, config: Pick<Config, 'SMTP_URL' | 'EMAIL_FROM'>, m: OneMail): Promise<SendEmailOutput> {
  const { attempt: a, build } = m;
  const attempt = a.attempt;
  const stop = async (type: string, message: string): Promise<never> => {
    await recordEmailFailure(db, a, message);
    throw ApplicationFailure.create({ type, message, nonRetryable: true });
  };
  if (!emailDomainAllowed(m.domains, a.recipient)) return stop('email_domain_not_allowed', "the address's domain is no longer on the project's email_domains; not sent");
  const smtpUrl = config.SMTP_URL;
  if (!smtpUrl) return stop('email_not_configured', 'no SMTP server is configured (SMTP_URL); not sent');
  const from = config.EMAIL_FROM;
  // Claimed first: only an attempt that holds the mail makes its link (an operator session).
  const claim = await claimEmail(db, a);
  if (claim.kind === 'delivered') return { result: 'delivered' as const, attempt };
  if (claim.kind === 'unknown') {
    throw ApplicationFailure.create({ type: 'email_in_doubt', message: 'an earlier attempt stopped while sending: whether it arrived is unknown, so it is not sent again', nonRetryable: true });
  }
  if (claim.kind === 'busy') throw ApplicationFailure.create({ type: 'email_busy', message: 'another attempt is sending this mail', nextRetryDelay: RETRY_INITIAL_MS });

  let content: MailContent;
  try {
    content = await build();
  } catch (err) {
    // Nothing was sent: the claim is released, so a later attempt may send.
    await finishEmail(db, claim.deliveryId, { result: 'failed', error: `not sent: ${(err as Error).message}` });
    throw err;
  }
  return sendHeld(db, { smtpUrl, from }, a, claim.deliveryId, content);
}

/** The claimed mail handed to the SMTP server, and its outcome recorded on the claim's row. */
async function sendHeld(db: Db, via: { smtpUrl: string; from: string }, a: EmailAttempt, deliveryId: string, content: MailContent): Promise<SendEmailOutput> {
  const { smtpUrl, from } = via;
  const attempt = a.attempt;
  const started = Date.now();
  try {
    // Marked handed over before the first byte: a worker that dies before that leaves a mail
    // a later attempt may send; one that lost its claim meanwhile sends nothing.
    const beforeData = async () => {
      if (!(await markHandedOver(db, deliveryId))) throw new Error('a later attempt took this mail over; not sent');
    };
    await sendMail(smtpUrl, { from, to: a.recipient, messageId: a.messageId, ...content }, { beforeData });
  } catch (err) {
    const f = sendFailure(err, smtpUrl);
    if (f.outcome === 'in_doubt') {
      // The message was handed over and no reply came: it may have arrived. Never sent twice.
      await finishEmail(db, deliveryId, { result: 'unknown', latencyMs: Date.now() - started, error: `${f.message}; whether the mail arrived is unknown, so it is not sent again` });
      throw ApplicationFailure.create({ type: 'email_in_doubt', message: f.message, nonRetryable: true });
    }
    // Nothing of the message was sent, or the server said it did not take it: retried, unless
    // it refused it for good (a 5xx: no such mailbox, policy).
    const permanent = f.outcome === 'rejected';
    const delay = emailRetryDelay(attempt);
    const last = permanent || attempt >= EMAIL_MAX_ATTEMPTS;
    await finishEmail(db, deliveryId, {
      result: 'failed',
      statusCode: f.responseCode,
      latencyMs: Date.now() - started,
      error: last && !permanent ? `${f.message}; gave up after ${attempt} attempts` : f.message,
      nextAttemptAt: last ? undefined : new Date(Date.now() + delay),
    });
    throw ApplicationFailure.create({
      type: permanent ? 'email_rejected' : 'email_failed',
      message: f.message,
      nonRetryable: permanent,
      nextRetryDelay: delay,
      // An unreachable SMTP server is expected now and then; the worker logs it at debug only.
      category: ApplicationFailureCategory.BENIGN,
    });
  }
  await finishEmail(db, deliveryId, { result: 'delivered', statusCode: 250, latencyMs: Date.now() - started });
  return { result: 'delivered' as const, attempt };
}
