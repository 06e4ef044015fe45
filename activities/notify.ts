// Callback delivery (docs/notifications.md): one signed POST per Temporal attempt of deliverCallback, run by
// workflows/callback.ts after the task is already final. Every attempt is a row in `deliveries`;
// the rules of one attempt are domain/callbacks/deliver.ts.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Activities, DeliverInput } from '../model/activities.js';
import { type Attempt, backoffMs, post, stopReason, verdict } from '../domain/callbacks/deliver.js';
import { recordDelivery } from '../domain/callbacks/deliveries.js';
import { webhookHeaders } from '../domain/callbacks/webhooks.js';
import { signingSecrets } from '../domain/projects/admin.js';
import { getProject } from '../domain/projects/projects.js';
import { checkOutgoingUrl } from '../domain/source/hosts.js';
import { getTask } from '../domain/tasks/queries.js';
import { linkSigner, signerFor, taskJson } from '../domain/tasks/view.js';
import { metrics } from '../platform/metrics.js';
import type { ActivityDeps } from './deps.js';
import { atBoundary } from './failure.js';

export function createNotifyActivities({ db, config, linkSecret }: ActivityDeps): Pick<Activities, 'deliverCallback'> {
  const signer = linkSigner(config, linkSecret);

  return atBoundary({
    async deliverCallback(input: DeliverInput) {
      const ctx = Context.current();
      const { attempt } = ctx.info;
      const task = await getTask(db, input.taskId);
      if (!task?.callback) return { delivered: false, attempt, statusCode: null, reason: 'the task has no callback' };
      // A retry of the task started a new run with its own callback; this one is moot.
      if (task.runs !== input.run) return { delivered: false, attempt, statusCode: null, reason: `superseded by run ${task.runs}` };
      const project = await getProject(db, task.projectId);
      if (!project) return { delivered: false, attempt, statusCode: null, reason: 'the project no longer exists' };

      const record = (a: Partial<Attempt> & { nextAttemptAt?: Date }) =>
        recordDelivery(db, { taskId: task.id, event: input.event, webhookId: input.webhookId, attempt, ...a });
      const counted = (result: string) => metrics.callbackDeliveries.inc({ project_id: project.id, result });
      const stop = async (type: string, message: string, a: Partial<Attempt> = {}): Promise<never> => {
        await record({ ...a, error: message });
        counted(type === 'callback_gave_up' ? 'gave_up' : type === 'callback_host_not_allowed' ? 'host_not_allowed' : 'rejected');
        throw ApplicationFailure.create({ type, message, nonRetryable: true });
      };

      // The allow-list may have changed since submission; it is checked again for every attempt.
      const target = checkOutgoingUrl(task.callback, project.callbackHosts);
      if (!target.ok) return stop('callback_host_not_allowed', `the callback host is no longer allowed (${target.reason})`);

      const body = JSON.stringify({ event: input.event, task: taskJson(task, signerFor(signer, project)) });
      const headers = webhookHeaders(signingSecrets(project), input.webhookId, body);
      const a = await post(target.url.toString(), body, headers, config.CALLBACK_TIMEOUT_MS, ctx.cancellationSignal);
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
    },
  });
}
