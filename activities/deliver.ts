// Delivery into the task's destination (domain/destinations/deliver.ts), one Temporal attempt at a
// time: what is done is heartbeated (files delivered, the open multipart upload and its parts), so
// the next attempt, on this worker or another, continues it. A transient failure is retried by the
// profile's backoff (workflows/profiles.ts); a permanent one fails the task (activities/failure.ts).
import { Context } from '@temporalio/activity';
import { type Activities, DELIVER_MAX_ATTEMPTS } from '../model/activities.js';
import { type DeliveryCheckpoint, deliverTask, destinationOf } from '../domain/destinations/deliver.js';
import { DomainError } from '../domain/errors.js';
import { requireTask } from '../domain/tasks/queries.js';
import { logger } from '../platform/logger.js';
import { metrics } from '../platform/metrics.js';
import { type ActivityDeps, heartbeat } from './deps.js';
import { atBoundary } from './failure.js';

const log = logger('delivery');
// Between two parts the checkpoint is heartbeated as it changes; this keeps a slow part's attempt alive.
const BEAT_MS = 2000;

export function createDeliverActivities({ db, storage, config, destinationKeys }: ActivityDeps): Pick<Activities, 'deliverFiles'> {
  return atBoundary({
    async deliverFiles({ taskId, files }) {
      const ctx = Context.current();
      const task = await requireTask(db, taskId);
      const destinationId = destinationOf(task).id ?? 'none';
      const labels = { project_id: task.projectId, destination_id: destinationId };
      let checkpoint: DeliveryCheckpoint = (ctx.info.heartbeatDetails as DeliveryCheckpoint | undefined) ?? { delivered: [] };
      // Whether this attempt continues an earlier one: what it started from, not what it did.
      const resumed = checkpoint.delivered.length > 0 || checkpoint.current !== undefined;
      const beat = () => heartbeat(ctx, checkpoint);
      const timer = setInterval(beat, BEAT_MS);
      const started = Date.now();
      try {
        const deps = { db, storage, keys: destinationKeys, partBytes: config.DELIVERY_PART_BYTES, timeoutMs: config.DELIVERY_TIMEOUT_MS,
          // Asked by the workflow (the task was cancelled), not a timeout or a worker shutting down.
          abandoned: () => ctx.cancellationDetails?.cancelRequested === true,
          lastAttempt: ctx.info.attempt >= DELIVER_MAX_ATTEMPTS };
        const report = await deliverTask(deps, task, files, checkpoint, (c) => {
          // A cancelled task stops between two parts; the bucket keeps no partial object.
          ctx.cancellationSignal.throwIfAborted();
          checkpoint = c;
          beat();
        });
        metrics.destinationDeliveries.inc({ ...labels, outcome: 'delivered', code: '' });
        metrics.destinationBytes.inc(labels, report.bytes);
        metrics.deliveryDuration.observe({ outcome: 'delivered' }, (Date.now() - started) / 1000);
        // An SFTP upload finds its temporary file by name, not in the checkpoint: it says itself what it wrote on from.
        const resumedAny = resumed || (report.resumedBytes ?? 0) > 0;
        log.info({ taskId, ...labels, files: files.length, bytes: report.bytes, attempt: ctx.info.attempt, resumed: resumedAny, ...(report.resumedBytes ? { resumed_bytes: report.resumedBytes } : {}) }, 'delivered');
        return { files: report.files };
      } catch (err) {
        // Cancelled (the task, a worker shutting down, a heartbeat timeout): Temporal's cancellation,
        // whatever the upload threw on the way out, and no failed delivery in the metrics or the log.
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
        const code = err instanceof DomainError ? err.code : 'internal_error';
        const outcome = err instanceof DomainError && !err.retryable ? 'failed' : 'retry';
        metrics.destinationDeliveries.inc({ ...labels, outcome, code });
        metrics.deliveryDuration.observe({ outcome }, (Date.now() - started) / 1000);
        log.warn({ taskId, ...labels, code, attempt: ctx.info.attempt, err: (err as Error).message }, 'delivery failed');
        throw err;
      } finally {
        clearInterval(timer);
      }
    },
  });
}
