// Run by a Temporal Schedule (app/schedules.ts): removes expired files. One heartbeating activity
// works through the whole backlog in batches of CLEANUP_BATCH_SIZE (domain/tasks/expiry.ts), a few
// events in the history however many tasks.
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../model/activities.js';
import { expiry } from './profiles.js';

const { expireTasks } = proxyActivities<Pick<Activities, 'expireTasks'>>(expiry);

export async function cleanupWorkflow(_input: Record<string, never> = {}): Promise<{ expired: number }> {
  return expireTasks({});
}
