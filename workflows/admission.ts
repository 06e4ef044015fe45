// Run by a Temporal Schedule (app/schedules.ts): starts what a crash left waiting (domain/tasks/admission/service.ts)
// and ends the tasks whose run ended without recording it (domain/tasks/reconcile.ts).
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../model/activities.js';

const { sweepAdmission } = proxyActivities<Pick<Activities, 'sweepAdmission'>>({ startToCloseTimeout: '2 minutes', retry: { maximumAttempts: 3 } });

export async function admissionSweepWorkflow(_input: Record<string, never> = {}): Promise<{ started: number; ended: number }> {
  return sweepAdmission({});
}
