// A task's e-mail to one recipient (docs/notifications.md#5-e-mail), run by workflows/email.ts after
// the task is final. Every attempt is a row in `deliveries` (channel `email`); the claim in
// domain/callbacks/email-deliveries.ts keeps a mail from going out twice (docs/adr/0031-task-emails.md).
import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { TaskRow, ProjectRow } from '../db/schema.js';
import { claimEmail, type EmailAttempt, finishEmail, markHandedOver, recordEmailFailure } from '../domain/callbacks/email-deliveries.js';
import { buildTaskMail, emailDomainAllowed, emailMessageId } from '../domain/callbacks/email-message.js';
import { getProject, settingsOf } from '../domain/projects/projects.js';
import { createOperatorSession, OPERATOR_SESSION_MAX_SECONDS, operatorSessionUrl } from '../domain/projects/sessions.js';
import { getTask } from '../domain/tasks/queries.js';
import { EMAIL_MAX_ATTEMPTS, type Activities, type SendEmailInput } from '../model/activities.js';
import { taskErrorCode } from '../model/errors.js';
import type { Locale } from '../model/task.js';
import { sendFailure, sendMail } from '../platform/mailer.js';
import type { ActivityDeps } from './deps.js';
import { atBoundary } from './failure.js';

const RETRY_INITIAL_MS = 10_000;
const RETRY_MAX_MS = 30 * 60_000;

/** The wait after a failed attempt: doubling from 10 s up to 30 minutes (72.5 min over 10 attempts). */
const emailRetryDelay = (attempt: number): number => Math.min(RETRY_INITIAL_MS * 2 ** (attempt - 1), RETRY_MAX_MS);

export function createEmailActivities({ db, config }: ActivityDeps): Pick<Activities, 'sendTaskEmail'> {
  const host = new URL(config.publicBaseUrl).hostname;

  /**
   * The link of a succeeded task: a session of that one task, download only, until its files
   * expire or for a day (OPERATOR_SESSION_MAX_SECONDS, what the API may mint), whichever is first.
   */
  async function link(task: TaskRow, project: ProjectRow, locale: Locale): Promise<{ url: string; until: Date } | null> {
    const seconds = task.expiresAt ? Math.floor((task.expiresAt.getTime() - Date.now()) / 1000) : 0;
    if (task.status !== 'succeeded' || seconds < 60) return null;
    const expiresIn = Math.min(seconds, OPERATOR_SESSION_MAX_SECONDS);
    const { session, token } = await createOperatorSession(db, project, { operatorId: task.operatorId, taskId: task.id, expiresIn, permissions: ['download'], locale });
    return { url: operatorSessionUrl(config.publicBaseUrl, token), until: session.expiresAt };
  }

  async function mailOf(task: TaskRow, project: ProjectRow, event: SendEmailInput['event']) {
    const locale: Locale = task.options.locale ?? 'en';
    const opens = await link(task, project, locale);
    return buildTaskMail({
      locale,
      event,
      name: task.fileName,
      operatorId: task.operatorId,
      files: task.files.map((f) => ({ name: f.name, rows: f.rows, bytes: f.bytes })),
      totalRows: task.totalRows,
      expiresAt: task.expiresAt,
      link: opens?.url ?? null,
      linkUntil: opens?.until ?? null,
      error: task.errorCode ? { code: taskErrorCode(task.errorCode) } : null,
    });
  }

  return atBoundary({
    async sendTaskEmail(input: SendEmailInput) {
      const { attempt } = Context.current().info;
      const task = await getTask(db, input.taskId);
      const skipped = (reason: string) => ({ result: 'skipped' as const, attempt, reason });
      if (!task) return skipped('the task no longer exists');
      // A retry of the task started a new run, whose own end will be mailed.
      if (task.runs !== input.run) return skipped(`superseded by run ${task.runs}`);
      const to = task.options.notify_email?.[input.index];
      const project = await getProject(db, task.projectId);
      if (!to || !project) return skipped('no such recipient any more');
      const a: EmailAttempt = { taskId: task.id, event: input.event, messageId: emailMessageId({ ...input, taskId: task.id }, host), recipient: to, attempt };
      const stop = async (type: string, message: string): Promise<never> => {
        await recordEmailFailure(db, a, message);
        throw ApplicationFailure.create({ type, message, nonRetryable: true });
      };
      // The project's list may have changed since submission: checked again before every send.
      if (!emailDomainAllowed(settingsOf(project).email_domains, to)) return stop('email_domain_not_allowed', "the address's domain is no longer on the project's email_domains; not sent");
      if (!config.SMTP_URL) return stop('email_not_configured', 'no SMTP server is configured (SMTP_URL); not sent');

      // Claimed first: only an attempt that holds the mail makes its link (an operator session).
      const claim = await claimEmail(db, a);
      if (claim.kind === 'delivered') return { result: 'delivered' as const, attempt };
      if (claim.kind === 'unknown') {
        throw ApplicationFailure.create({ type: 'email_in_doubt', message: 'an earlier attempt stopped while sending: whether it arrived is unknown, so it is not sent again', nonRetryable: true });
      }
      if (claim.kind === 'busy') throw ApplicationFailure.create({ type: 'email_busy', message: 'another attempt is sending this mail', nextRetryDelay: RETRY_INITIAL_MS });

      let content: ReturnType<typeof buildTaskMail>;
      try {
        content = await mailOf(task, project, input.event);
      } catch (err) {
        // Nothing was sent: the claim is released, so a later attempt may send.
        await finishEmail(db, claim.deliveryId, { result: 'failed', error: `not sent: ${(err as Error).message}` });
        throw err;
      }
      const started = Date.now();
      try {
        // Marked handed over before the first byte: a worker that dies before that leaves a mail
        // a later attempt may send; one that lost its claim meanwhile sends nothing.
        const beforeData = async () => {
          if (!(await markHandedOver(db, claim.deliveryId))) throw new Error('a later attempt took this mail over; not sent');
        };
        await sendMail(config.SMTP_URL, { from: config.EMAIL_FROM, to, messageId: a.messageId, ...content }, { beforeData });
      } catch (err) {
        const f = sendFailure(err, config.SMTP_URL);
        if (f.outcome === 'in_doubt') {
          // The message was handed over and no reply came: it may have arrived. Never sent twice.
          await finishEmail(db, claim.deliveryId, { result: 'unknown', latencyMs: Date.now() - started, error: `${f.message}; whether the mail arrived is unknown, so it is not sent again` });
          throw ApplicationFailure.create({ type: 'email_in_doubt', message: f.message, nonRetryable: true });
        }
        // Nothing of the message was sent, or the server said it did not take it: retried, unless
        // it refused it for good (a 5xx: no such mailbox, policy).
        const permanent = f.outcome === 'rejected';
        const delay = emailRetryDelay(attempt);
        const last = permanent || attempt >= EMAIL_MAX_ATTEMPTS;
        await finishEmail(db, claim.deliveryId, {
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
      await finishEmail(db, claim.deliveryId, { result: 'delivered', statusCode: 250, latencyMs: Date.now() - started });
      return { result: 'delivered' as const, attempt };
    },
  });
}
