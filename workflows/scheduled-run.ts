// One run of a schedule (ADR 0014), started by its Temporal Schedule: a single activity submits the
// run's task through the same path as POST /v1/tasks (admission, de-duplication, limits), and the
// task then runs as an ordinary export. The run's due time fills the body's {{date}} placeholders
// and ends its window ({{interval_end}}, ADR 0034).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../model/activities.js';
import type { ScheduledRunInput, SubmitRunOutput } from '../model/schedule.js';

const { submitScheduledRun } = proxyActivities<Pick<Activities, 'submitScheduledRun'>>({
  startToCloseTimeout: '1 minute',
  // A refused submission is an answer, not an error; what is retried is a full submit quota (the
  // activity asks for its Retry-After) or an unreachable database or Temporal: for about an hour.
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 20 },
});

/** Set by the server on every workflow a Schedule starts: the time the action was due (a trigger's: now; a backfill's: the time it fills). */
const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);

export async function scheduledRunWorkflow(input: ScheduledRunInput): Promise<SubmitRunOutput> {
  const info = workflowInfo();
  const due = info.typedSearchAttributes.get(SCHEDULED_START) ?? info.startTime;
  // The run's key is its execution, not its workflow id: a backfill of a time that ran before
  // starts a workflow of the same id, and must make a task of its own.
  return submitScheduledRun({ scheduleId: input.scheduleId, scheduledAt: due.toISOString(), run: info.runId });
}
