// Telling someone a schedule paused itself (docs/schedules.md#when-a-schedule-keeps-failing, ADR 0048):
// one mail to each of the project's alert_emails and one signed `schedule.paused` event to its
// alert_callback. They go through the delivery workflows a task's end uses (workflows/email.ts,
// workflows/callback.ts: durable retries, each mail claimed before it is sent, every attempt a row of
// the failed task's deliveries), started here under ids fixed by the pause, with REJECT_DUPLICATE:
// however often this runs for one pause (a retried activity, a crash before `alerted_at` was set,
// several runs ending at once), each delivery starts once. The addresses and the failure count are
// fixed in the alert's input here, at the pause: an edit of alert_emails during the mails' retries
// neither moves, skips nor repeats a mail (each address is still checked against email_domains).
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { and, eq, isNull } from 'drizzle-orm';
import { type ScheduleRow, schedules } from '../../db/schema.js';
import { SCHEDULE_PAUSED_EVENT, scheduleAlertIds, type ScheduleLastError } from '../../model/schedule.js';
import { callbackWorkflow } from '../../workflows/callback.js';
import { emailWorkflow } from '../../workflows/email.js';
import { getProject, settingsOf } from '../projects/projects.js';
import type { ScheduleDeps } from './schedules.js';

/** Starts the alert of a pause for failing after `failures` failed runs in a row, once, and notes on the row that it started. */
export async function alertPaused(deps: ScheduleDeps, schedule: Pick<ScheduleRow, 'id' | 'projectId'>, lastError: ScheduleLastError, failures: number): Promise<void> {
  if (lastError.task_id && lastError.run !== undefined) {
    const project = await getProject(deps.db, schedule.projectId);
    const settings = project ? settingsOf(project) : null;
    const ids = scheduleAlertIds(schedule.id, lastError.task_id, lastError.run);
    const base = { taskQueue: deps.config.TEMPORAL_TASK_QUEUE, workflowIdReusePolicy: 'REJECT_DUPLICATE' as const };
    const about = { taskId: lastError.task_id, run: lastError.run, event: SCHEDULE_PAUSED_EVENT } as const;
    if (settings?.alert_callback) {
      await once(() => deps.temporal.workflow.start(callbackWorkflow, { ...base, workflowId: ids.callbackWorkflowId, args: [{ ...about, webhookId: ids.webhookId, failures }] }));
    }
    const to = distinctAddresses(settings?.alert_emails ?? []);
    const alert = { to, failures };
    if (to.length > 0) await once(() => deps.temporal.workflow.start(emailWorkflow, { ...base, workflowId: ids.emailWorkflowId, args: [{ ...about, recipients: to.length, alert }] }));
  }
  await deps.db.update(schedules).set({ alertedAt: new Date() }).where(and(eq(schedules.id, schedule.id), isNull(schedules.alertedAt)));
}

/** One mail per address: the same address twice in the list (in any case) is mailed once. */
function distinctAddresses(list: readonly string[]): string[] {
  const seen = new Set<string>();
  return list.filter((a) => !seen.has(a.toLowerCase()) && seen.add(a.toLowerCase()));
}

async function once(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
