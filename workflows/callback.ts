// Delivery of one callback event, as a child of the export that the export abandons: the task is
// already final when this starts, so a slow or dead receiver never holds the export up, and the
// delivery keeps its own durable retry state (docs/adr/0004-callback-delivery-child-workflow.md).
import { proxyActivities } from '@temporalio/workflow';
import type { Activities, DeliverInput, DeliverOutput } from '../model/activities.js';
import { CALLBACK_STOP_TYPES } from '../model/errors.js';

export async function callbackWorkflow(input: DeliverInput): Promise<DeliverOutput> {
  const { deliverCallback } = proxyActivities<Activities>({
    // One POST with its own CALLBACK_TIMEOUT_MS (at most 2 minutes) plus two small queries.
    startToCloseTimeout: '3 minutes',
    // A safety net only: CALLBACK_RETRY_WINDOW_MS (at most 72 h) normally ends delivery first.
    scheduleToCloseTimeout: '73 hours',
    // The activity sets each delay itself (backoff, jitter, Retry-After) and stops at the end of
    // CALLBACK_RETRY_WINDOW_MS; these values only apply when an attempt crashes or times out.
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', nonRetryableErrorTypes: CALLBACK_STOP_TYPES },
  });
  return deliverCallback(input);
}
