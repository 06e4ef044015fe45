// The service's Temporal Schedules, created once (every worker tries at start; the first one wins).
import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { Config } from '../platform/config.js';

export const CLEANUP_SCHEDULE_ID = 'download-center-cleanup';
export const ADMISSION_SWEEP_SCHEDULE_ID = 'download-center-admission-sweep';

async function ensure(client: Client, scheduleId: string, every: Duration, workflowType: string, config: Config): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every }] },
      action: { type: 'startWorkflow', workflowType, args: [{}], taskQueue: config.TEMPORAL_TASK_QUEUE },
      // A slow run is never doubled up.
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}

/** Expired files are removed every CLEANUP_INTERVAL_MINUTES. */
export function ensureCleanupSchedule(client: Client, config: Config): Promise<void> {
  return ensure(client, CLEANUP_SCHEDULE_ID, `${config.CLEANUP_INTERVAL_MINUTES} minutes` as Duration, 'cleanupWorkflow', config);
}

/** Admission's backstop: what a crash left waiting is started within a minute (domain/tasks/admission/service.ts, Admission.sweep). */
export function ensureAdmissionSweepSchedule(client: Client, config: Config): Promise<void> {
  return ensure(client, ADMISSION_SWEEP_SCHEDULE_ID, '1 minute', 'admissionSweepWorkflow', config);
}
