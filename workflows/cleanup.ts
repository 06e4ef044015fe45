// Run by a Temporal Schedule (app/schedules.ts): removes expired files in bounded batches.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../model/activities.js';

const { expireFiles } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

const BATCH = 200;
// Bounds one run's history; whatever is left waits for the next scheduled run.
const MAX_BATCHES = 50;

export async function cleanupWorkflow(_input: Record<string, never> = {}): Promise<{ expired: number }> {
  let expired = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const { expired: n } = await expireFiles({ batch: BATCH });
    expired += n;
    if (n < BATCH) break;
  }
  return { expired };
}
