// A schedule's pause alert (event schedule.paused, domain/schedules/alerts.ts starts it): the mail to
// one of the project's alert_emails and the signed event to its alert_callback, carried by the
// delivery workflows of a task's end and recorded among the deliveries of the failed task that
// paused it. The addresses and the count of failed runs are the ones fixed in the alert's input at
// the pause (domain/schedules/alerts.ts); the rest is read again from the rows on each attempt, and
// each address is checked again against the project's email_domains, as for a task's own mail.
import type { ScheduleRow, TaskRow } from '../db/schema.js';
import type { EmailAttempt } from '../domain/callbacks/email-deliveries.js';
import { signingSecrets } from '../domain/projects/admin.js';
import { getProject, settingsOf } from '../domain/projects/projects.js';
import { alertMessageId, buildPausedMail } from '../domain/schedules/alert-mail.js';
import { getSchedule } from '../domain/schedules/schedules.js';
import { scheduleJson } from '../domain/schedules/view.js';
import { checkOutgoingUrl } from '../domain/source/hosts.js';
import { getTask } from '../domain/tasks/queries.js';
import type { DeliverInput, DeliverOutput, EmailInput, PausedAlertFacts, SendEmailInput, SendEmailOutput } from '../model/activities.js';
import { taskErrorCode } from '../model/errors.js';
import type { Locale } from '../model/task.js';
import type { ActivityDeps } from './deps.js';
import { mailOnce } from './mail-once.js';
import { postOnce } from './post-once.js';
import { workflowStartInput } from './workflow-start-input.js';

type Facts = { task: TaskRow; schedule: ScheduleRow; project: NonNullable<Awaited<ReturnType<typeof getProject>>> } | { skip: string };
type Execution = { workflowId: string; runId: string };

export function createScheduleAlerts({ db, config, temporal }: Pick<ActivityDeps, 'db' | 'config' | 'temporal'>) {
  const host = new URL(config.publicBaseUrl).hostname;
  /** The console's schedules page, opened at this schedule. */
  const consoleUrl = (scheduleId: string) => `${config.publicBaseUrl.replace(/\/+$/, '')}/#/schedules/${encodeURIComponent(scheduleId)}`;

  async function factsOf(taskId: string): Promise<Facts> {
    const task = await getTask(db, taskId);
    const schedule = task?.scheduleId ? await getSchedule(db, task.scheduleId) : undefined;
    if (!task || !schedule) return { skip: 'the schedule no longer exists' };
    const project = await getProject(db, schedule.projectId);
    return project ? { task, schedule, project } : { skip: 'the project no longer exists' };
  }

  /**
   * The addresses and count fixed at the pause, from the e-mail workflow's start input. An alert
   * started before they were (no `alert` in its input) reads the project's list as it is now.
   */
  async function alertFacts(f: Exclude<Facts, { skip: string }>, execution: Execution | undefined): Promise<PausedAlertFacts> {
    const input = execution && ((await workflowStartInput(temporal, execution)) as EmailInput | undefined);
    return input?.alert ?? { to: settingsOf(f.project).alert_emails, failures: f.schedule.consecutiveFailures };
  }

  /** The pause's facts as the event tells them: the runs that failed, and the last one's error. */
  function eventBody(f: Exclude<Facts, { skip: string }>, input: DeliverInput): string {
    const code = taskErrorCode(f.task.errorCode);
    return JSON.stringify({
      event: input.event,
      schedule_id: f.schedule.id,
      failures: input.failures ?? f.schedule.consecutiveFailures,
      last_error: { code, message: f.task.errorMessage ?? code, task_id: f.task.id },
      console_url: consoleUrl(f.schedule.id),
      schedule: scheduleJson(f.schedule),
    });
  }

  return {
    async sendAlertEmail(input: SendEmailInput, attempt: number, execution: Execution | undefined): Promise<SendEmailOutput> {
      const f = await factsOf(input.taskId);
      if ('skip' in f) return { result: 'skipped', attempt, reason: f.skip };
      const alert = await alertFacts(f, execution);
      const to = alert.to[input.index];
      if (!to) return { result: 'skipped', attempt, reason: 'no such recipient any more' };
      const { task, schedule } = f;
      const a: EmailAttempt = { taskId: task.id, event: input.event, messageId: alertMessageId({ scheduleId: schedule.id, taskId: task.id, run: input.run, address: to }, host), recipient: to, attempt };
      const body = schedule.body as { locale?: Locale };
      const build = async () =>
        buildPausedMail({
          locale: body.locale ?? 'en',
          scheduleId: schedule.id,
          // The run's own name (the file_name template filled for it), as its task shows it.
          name: task.fileName,
          failures: alert.failures,
          error: { code: taskErrorCode(task.errorCode), taskId: task.id, at: task.finishedAt ?? new Date() },
          link: consoleUrl(schedule.id),
        });
      return mailOnce(db, config, { attempt: a, domains: settingsOf(f.project).email_domains, build });
    },

    async deliverAlertEvent(input: DeliverInput, attempt: number): Promise<DeliverOutput> {
      const f = await factsOf(input.taskId);
      if ('skip' in f) return { delivered: false, attempt, statusCode: null, reason: f.skip };
      const url = settingsOf(f.project).alert_callback;
      if (!url) return { delivered: false, attempt, statusCode: null, reason: 'the project has no alert_callback any more' };
      const target = checkOutgoingUrl(url, f.project.callbackHosts);
      return postOnce(db, config, {
        taskId: f.task.id,
        projectId: f.project.id,
        event: input.event,
        webhookId: input.webhookId,
        url: target.ok ? target.url.toString() : null,
        ...(target.ok ? {} : { why: target.reason }),
        body: eventBody(f, input),
        secrets: signingSecrets(f.project),
      });
    },
  };
}
