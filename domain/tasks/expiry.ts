// Expiry of finished files past their retention (docs/operations.md#retention), in bounded
// batches so a backlog of a million never holds what submissions need: each batch reads the due
// tasks by tasks_expires_idx (no lock), deletes their files from the store, then marks them
// expired in one short UPDATE by primary key (docs/adr/0035-expiry-in-batches.md). Files go
// first: a crash between the two leaves tasks still due, found again by the next batch, so
// nothing is left in the store. A task past its expires_at answers 410 meanwhile either way (its
// links never outlive expires_at, and a missing file is `expired`).
import type { Db } from '../../db/client.js';
import type { Storage } from '../../platform/storage/types.js';
import { keys } from '../staging/keys.js';
import { dueForExpiry, markBatchExpired } from './status.js';

export interface ExpiryOptions {
  /** Tasks per batch: one read, their files, one UPDATE. */
  batch: number;
  /** Store deletions at once within a batch. */
  concurrency: number;
  /** Called after each batch with the running total (the activity heartbeats it). */
  onBatch?: (expired: number) => void;
  /**
   * Called after each task's files are deleted, within a batch: the activity heartbeats here too,
   * since a batch of up to 10,000 tasks' deletions can outlast the heartbeat timeout.
   */
  onDeleted?: () => void;
  /** Stops between batches when set (the activity's cancellation). */
  signal?: AbortSignal;
}

/** One batch: the tasks it marked expired (fewer than `batch` when the backlog is done). */
async function expireBatch(db: Db, storage: Storage, { batch, concurrency, onDeleted }: ExpiryOptions): Promise<{ due: number; expired: number }> {
  const due = await dueForExpiry(db, batch);
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      await storage.deletePrefix(keys.files(due[next++]!));
      onDeleted?.();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
  return { due: due.length, expired: (await markBatchExpired(db, due)).length };
}

/** Batches until nothing is due (or the signal): how many tasks were expired. */
export async function expireDue(db: Db, storage: Storage, opts: ExpiryOptions): Promise<number> {
  let expired = 0;
  while (!opts.signal?.aborted) {
    const { due, expired: n } = await expireBatch(db, storage, opts);
    expired += n;
    opts.onBatch?.(expired);
    if (due < opts.batch) break;
  }
  return expired;
}
