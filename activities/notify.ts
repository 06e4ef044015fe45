// Callback delivery (docs/notifications.md): one signed POST per Temporal attempt of deliverCallback, run by
// workflows/callback.ts after the task is already final. Every attempt is a row in `deliveries`;
// the rules of one attempt are domain/callbacks/deliver.ts (through post-once.ts). The same workflow
// carries a schedule's schedule.paused event to the project's alert_callback (schedule-alerts.ts).
import { Context } from '@temporalio/activity';
import type { Activities, DeliverInput } from '../model/activities.js';
import { SCHEDULE_PAUSED_EVENT } from '../model/schedule.js';
import { signingSecrets } from '../domain/projects/admin.js';
import { getProject } from '../domain/projects/projects.js';
import { checkOutgoingUrl } from '../domain/source/hosts.js';
import { getTask } from '../domain/tasks/queries.js';
import { linkSigner, signerFor, taskJson } from '../domain/tasks/view.js';
import type { ActivityDeps } from './deps.js';
import { atBoundary } from './failure.js';
import { postOnce } from './post-once.js';
import { createScheduleAlerts } from './schedule-alerts.js';

export function createNotifyActivities(deps: ActivityDeps): Pick<Activities, 'deliverCallback'> {
  const { db, config, linkSecret } = deps;
  const signer = linkSigner(config, linkSecret);
  const alerts = createScheduleAlerts(deps);

  return atBoundary({
    async deliverCallback(input: DeliverInput) {
      const { attempt } = Context.current().info;
      if (input.event === SCHEDULE_PAUSED_EVENT) return alerts.deliverAlertEvent(input, attempt);
      const task = await getTask(db, input.taskId);
      if (!task?.callback) return { delivered: false, attempt, statusCode: null, reason: 'the task has no callback' };
      // A retry of the task started a new run with its own callback; this one is moot.
      if (task.runs !== input.run) return { delivered: false, attempt, statusCode: null, reason: `superseded by run ${task.runs}` };
      const project = await getProject(db, task.projectId);
      if (!project) return { delivered: false, attempt, statusCode: null, reason: 'the project no longer exists' };
      const target = checkOutgoingUrl(task.callback, project.callbackHosts);
      const body = JSON.stringify({ event: input.event, task: taskJson(task, signerFor(signer, project)) });
      return postOnce(db, config, {
        taskId: task.id,
        projectId: project.id,
        event: input.event,
        webhookId: input.webhookId,
        url: target.ok ? target.url.toString() : null,
        ...(target.ok ? {} : { why: target.reason }),
        body,
        secrets: signingSecrets(project),
      });
    },
  });
}
