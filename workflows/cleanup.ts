// Run by a Temporal Schedule (app/schedules.ts): removes expired files in bounded batches.
import { patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../model/activities.js';
import { expiry } from './profiles.js';

const { expireFiles } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});
const { expireTasks } = proxyActivities<Activities>(expiry);

const BATCH = 200;
// Bounds one run's history; whatever is left waits for the next scheduled run.
const MAX_BATCHES = 50;

export async function cleanupWorkflow(_input: Record<string, never> = {}): Promise<{ expired: number }> {
  // dc-expiry-batches: one heartbeating activity works through the whole backlog in batches of
  // CLEANUP_BATCH_SIZE (domain/tasks/expiry.ts), a few events in the history however many tasks.
  // Retirement: docs/adr/0024-workflow-patches-and-retirement.md.
  if (patched('dc-expiry-batches')) return expireTasks({});
  let expired = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const { expired: n } = await expireFiles({ batch: BATCH });
    expired += n;
    if (n < BATCH) break;
  }
  return { expired };
}
