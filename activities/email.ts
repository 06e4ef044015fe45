// A task's e-mail to one recipient (docs/notifications.md#5-e-mail), run by workflows/email.ts after
// the task is final. Every attempt is a row in `deliveries` (channel `email`); the claim in
// domain/callbacks/email-deliveries.ts keeps a mail from going out twice (docs/adr/0031-task-emails.md).
// The same workflow carries a schedule's pause alert (event schedule.paused, schedule-alerts.ts).
import { Context } from '@temporalio/activity';
import type { TaskRow, ProjectRow } from '../db/schema.js';
import type { EmailAttempt } from '../domain/callbacks/email-deliveries.js';
import { buildTaskMail, emailMessageId } from '../domain/callbacks/email-message.js';
import { getProject, settingsOf } from '../domain/projects/projects.js';
import { createOperatorSession, OPERATOR_SESSION_MAX_SECONDS, operatorSessionUrl } from '../domain/projects/sessions.js';
import { getTask } from '../domain/tasks/queries.js';
import type { Activities, SendEmailInput, TaskEndEvent } from '../model/activities.js';
import { taskErrorCode } from '../model/errors.js';
import { SCHEDULE_PAUSED_EVENT } from '../model/schedule.js';
import type { Locale } from '../model/task.js';
import type { ActivityDeps } from './deps.js';
import { atBoundary } from './failure.js';
import { mailOnce } from './mail-once.js';
import { createScheduleAlerts } from './schedule-alerts.js';

export function createEmailActivities(deps: ActivityDeps): Pick<Activities, 'sendTaskEmail'> {
  const { db, config } = deps;
  const host = new URL(config.publicBaseUrl).hostname;
  const alerts = createScheduleAlerts(deps);

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

  async function mailOf(task: TaskRow, project: ProjectRow, event: TaskEndEvent) {
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
      const { attempt, workflowExecution } = Context.current().info;
      if (input.event === SCHEDULE_PAUSED_EVENT) return alerts.sendAlertEmail(input, attempt, workflowExecution);
      const event = input.event;
      const task = await getTask(db, input.taskId);
      const skipped = (reason: string) => ({ result: 'skipped' as const, attempt, reason });
      if (!task) return skipped('the task no longer exists');
      // A retry of the task started a new run, whose own end will be mailed.
      if (task.runs !== input.run) return skipped(`superseded by run ${task.runs}`);
      const to = task.options.notify_email?.[input.index];
      const project = await getProject(db, task.projectId);
      if (!to || !project) return skipped('no such recipient any more');
      const a: EmailAttempt = { taskId: task.id, event, messageId: emailMessageId({ ...input, event, taskId: task.id }, host), recipient: to, attempt };
      // The project's list may have changed since submission: checked again before every send.
      return mailOnce(db, config, { attempt: a, domains: settingsOf(project).email_domains, build: () => mailOf(task, project, event) });
    },
  });
}
