// Publishing: rendered outputs move from the task's staging prefix to files/<task_id>/ only once
// all of them exist, so a partial export is never presented as complete.
import type { RenderedFile } from '../../model/activities.js';
import { DomainError } from '../errors.js';
import type { StoredFile } from '../../model/task.js';
import type { Storage } from '../../platform/storage/index.js';
import { keys } from './keys.js';

export async function publish(storage: Storage, taskId: string, outputs: RenderedFile[]): Promise<StoredFile[]> {
  const files: StoredFile[] = [];
  for (const o of outputs) {
    const dest = keys.file(taskId, o.key.slice(o.key.lastIndexOf('/') + 1));
    // A retry after a crash may find the move already done.
    if ((await storage.size(o.key)) !== null) await storage.move(o.key, dest);
    const size = await storage.size(dest);
    if (size !== o.bytes) throw new DomainError('storage_failed', `stored ${o.name} has ${size ?? 'no'} bytes where ${o.bytes} were written`);
    files.push({ name: o.name, key: dest, bytes: o.bytes, rows: o.rows, sha256: o.sha256 });
  }
  await storage.deletePrefix(keys.staging(taskId));
  return files;
}

/** Compensation for a failed or cancelled run: nothing half-made stays behind. */
export async function discard(storage: Storage, taskId: string, opts: { files?: boolean } = {}): Promise<void> {
  await storage.deletePrefix(keys.staging(taskId));
  if (opts.files) await storage.deletePrefix(keys.files(taskId));
}
