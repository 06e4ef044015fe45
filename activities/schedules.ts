// A schedule's run submits its task (domain/schedules/runs.ts); the scheduledRunWorkflow retries
// it when the submission must wait (a full submit quota, Temporal unreachable).
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Activities } from '../model/activities.js';
import { RunLater, submitRun } from '../domain/schedules/runs.js';
import type { ActivityDeps } from './deps.js';

export function createScheduleActivities(deps: ActivityDeps): Pick<Activities, 'submitScheduledRun'> {
  return {
    async submitScheduledRun(input) {
      try {
        return await submitRun(deps, input);
      } catch (err) {
        if (!(err instanceof RunLater)) throw err;
        // BENIGN: waiting for the quota is expected; the worker logs it at debug only.
        throw ApplicationFailure.create({ type: 'run_later', message: err.message, nextRetryDelay: err.afterMs, category: ApplicationFailureCategory.BENIGN });
      }
    },
  };
}
