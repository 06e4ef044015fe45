import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Config } from '../platform/config.js';

export const CLEANUP_SCHEDULE_ID = 'download-center-cleanup';

/** Creates the cleanup schedule once; every worker calls this at start, the first one wins. */
export async function ensureCleanupSchedule(client: Client, config: Config): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: CLEANUP_SCHEDULE_ID,
      spec: { intervals: [{ every: `${config.CLEANUP_INTERVAL_MINUTES} minutes` }] },
      action: { type: 'startWorkflow', workflowType: 'cleanupWorkflow', args: [{}], taskQueue: config.TEMPORAL_TASK_QUEUE },
      // A slow run is never doubled up.
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
