// The input an activity's own workflow was started with, read from the first event of its history.
// A schedule's pause alert fixes its addresses in the e-mail workflow's input (domain/schedules/alerts.ts)
// while the workflow passes each send only an index: reading them here leaves the workflow's code,
// and so the commands it issues, as they were (docs/adr/0040-workflow-versioning-from-1.0.md).
import type { Client } from '@temporalio/client';

export async function workflowStartInput(client: Client, execution: { workflowId: string; runId: string }): Promise<unknown> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({ namespace: client.options.namespace, execution, maximumPageSize: 1 });
  const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return payload ? client.options.loadedDataConverter.payloadConverter.fromPayload(payload) : undefined;
}
