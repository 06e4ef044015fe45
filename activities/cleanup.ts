// Scheduled housekeeping: expired files deleted from the store, the task marked `expired`
// (docs/operations.md#retention, domain/tasks/expiry.ts); expired operator sessions purged
// (domain/projects/sessions.ts); admission's sweep of what a crash left waiting, and the reconciler
// of runs that ended without recording their task's end (domain/tasks/reconcile.ts).
import { Context } from '@temporalio/activity';
import type { Activities } from '../model/activities.js';
import { Admission } from '../domain/tasks/admission/index.js';
import { noteRunEnded } from '../domain/schedules/runs.js';
import { expireDue } from '../domain/tasks/expiry.js';
import { purgeEndedSessions } from '../domain/projects/sessions.js';
import { reconcileRuns } from '../domain/tasks/reconcile.js';
import { type ActivityDeps, heartbeat } from './deps.js';
import { atBoundary } from './failure.js';
import { observeRun } from './observe.js';

export function createCleanupActivities(deps: ActivityDeps): Pick<Activities, 'expireTasks' | 'sweepAdmission'> {
  const { db, storage, config } = deps;
  const concurrency = config.CLEANUP_DELETE_CONCURRENCY;
  // A pass deletes at most this many batches of expired operator sessions; the rest wait for the next.
  const SESSION_PURGE_BATCHES = 20;
  return atBoundary({
    /**
     * Admission's sweep, then the reconciler: a `running` task whose run ended without recording
     * it is ended, counted, and counts towards its schedule's failure streak like any end.
     */
    async sweepAdmission() {
      const { started } = await new Admission(deps).sweep();
      const ended = await reconcileRuns(deps);
      for (const { task, end } of ended) {
        observeRun(task, end.status, undefined);
        if (task.scheduleId) await noteRunEnded(deps, task);
      }
      return { started, ended: ended.length };
    },

    // Nothing to resume from the heartbeat: a batch's tasks stay due until their files are gone and
    // they are marked, so a retried attempt simply finds what is left. The heartbeat is liveness
    // (a dead worker's attempt is retried within the profile's heartbeat timeout) and progress:
    // after every deletion too, since a batch of 10,000 can take longer than that timeout (the SDK
    // sends at most one heartbeat per throttle interval).
    async expireTasks() {
      const ctx = Context.current();
      // Beside the files: sessions past their expiry (revoked ones with them), bounded per pass.
      // Inside this activity, so the cleanup workflow's commands stay as they are; a heartbeat after
      // each batch, as for the files (20 batches can outlast the heartbeat timeout).
      await purgeEndedSessions(db, { batch: config.CLEANUP_BATCH_SIZE, maxBatches: SESSION_PURGE_BATCHES, onBatch: () => heartbeat(ctx, { expired: 0 }) });
      let done = 0;
      const expired = await expireDue(db, storage, {
        batch: config.CLEANUP_BATCH_SIZE,
        concurrency,
        signal: ctx.cancellationSignal,
        onDeleted: () => heartbeat(ctx, { expired: done }),
        onBatch: (n) => heartbeat(ctx, { expired: (done = n) }),
      });
      return { expired };
    },
  });
}
