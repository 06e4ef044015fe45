// A schedule's run submits its task (domain/schedules/runs.ts); the scheduledRunWorkflow retries
// it when the submission must wait (a full submit quota, Temporal unreachable).
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Activities } from '../model/activities.js';
import { DomainError } from '../domain/errors.js';
import { submitRun } from '../domain/schedules/runs.js';
import type { ActivityDeps } from './deps.js';
import { atBoundary } from './failure.js';

export function createScheduleActivities(deps: ActivityDeps): Pick<Activities, 'submitScheduledRun'> {
  return atBoundary({
    async submitScheduledRun(input) {
      try {
        return await submitRun(deps, input);
      } catch (err) {
        // A submission refused for now (domain/schedules/runs.ts says which): the run is tried again.
        if (!(err instanceof DomainError) || !err.retryable) throw err;
        // BENIGN: waiting for the quota is expected; the worker logs it at debug only.
        throw ApplicationFailure.create({ type: 'run_later', message: err.message, nextRetryDelay: err.nextRetryDelayMs ?? 5000, category: ApplicationFailureCategory.BENIGN });
      }
    },
  });
}
