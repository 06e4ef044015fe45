// The e-mails of one task end, as a child of the export that the export abandons (like the
// callback, docs/adr/0004-callback-delivery-child-workflow.md): the task is already final, so a
// slow or dead SMTP server never holds the export up, and each mail keeps its own durable retries
// (docs/adr/0031-task-emails.md). One activity per recipient: one address refused or failing
// leaves the others' mails alone.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities, EmailInput } from '../model/activities.js';
import * as profiles from './profiles.js';

export interface EmailOutput {
  delivered: number;
  /** Skipped (the task was retried meanwhile), given up, refused, or in doubt: see the deliveries. */
  notDelivered: number;
}

export async function emailWorkflow(input: EmailInput): Promise<EmailOutput> {
  const { sendTaskEmail } = proxyActivities<Activities>(profiles.email);
  const outcomes = await Promise.allSettled(
    Array.from({ length: input.recipients }, (_, index) => sendTaskEmail({ taskId: input.taskId, run: input.run, event: input.event, index })),
  );
  const delivered = outcomes.filter((o) => o.status === 'fulfilled' && o.value.result === 'delivered').length;
  return { delivered, notDelivered: outcomes.length - delivered };
}
