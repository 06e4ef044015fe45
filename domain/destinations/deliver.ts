// A task's delivery: every file into its destination, then manifest.json last, the completion
// marker a reader waits for (it lists each file with its bytes, rows and sha256). What was done
// is a checkpoint the activity heartbeats, so an attempt after a crash picks up where it stopped.
// An S3 bucket's delivery is here; an SFTP server's is sftp-deliver.ts.
import type { StoredFile, TaskRow } from '../../db/schema.js';
import { contentTypeOf } from '../../platform/http.js';
import { requireProject } from '../projects/projects.js';
import { type Bucket, connect } from './connect.js';
import { withDeadline } from './deadline.js';
import { type DeliveryCheckpoint, type DeliveryDeps, type DeliveryReport, destinationOf, fromStore, manifestOf } from './delivery.js';
import { deliveryError } from './failures.js';
import { isS3, isSftp, malformed } from './kinds.js';
import { objectKey } from './path.js';
import { deliverSftp } from './sftp-deliver.js';
import { findDestination } from './store.js';
import { uploadFile } from './upload.js';
import { DomainError } from '../errors.js';

export { type DeliveryCheckpoint, type DeliveryDeps, type DeliveryReport, destinationOf } from './delivery.js';

export async function deliverTask(deps: DeliveryDeps, task: TaskRow, files: StoredFile[], checkpoint: DeliveryCheckpoint, save: (c: DeliveryCheckpoint) => void): Promise<DeliveryReport> {
  const { id, path } = destinationOf(task);
  if (!id) throw new DomainError('internal_error', `task ${task.id} has no destination`);
  const project = await requireProject(deps.db, task.projectId);
  const row = await findDestination(deps.db, project.id, id);
  if (!row) throw new DomainError('destination_not_found', `destination ${id} was deleted before the task's files were delivered`);
  if (isSftp(row)) return deliverSftp(deps, task, row, project.destinationHosts, files, checkpoint, save);
  if (!isS3(row)) throw malformed(row);
  let bucket: Bucket | undefined;
  // The multipart upload in flight, if any: what to abort when no attempt will come back for it.
  let open: { key: string; uploadId: string } | undefined;
  try {
    // The project's list as it is now decides, whatever it was when the task was submitted.
    bucket = connect(row, project.destinationHosts, deps.keys);
    const where = (name: string) => objectKey(row.prefix, path, { taskId: task.id, createdAt: task.createdAt }, name);
    let bytes = 0;
    for (const file of files) {
      if (checkpoint.delivered.some((d) => d.name === file.name)) continue;
      const resume = checkpoint.current?.name === file.name ? checkpoint.current : undefined;
      await uploadFile(bucket, where(file.name), () => fromStore(deps.storage, file.key), file.bytes, {
        partBytes: deps.partBytes,
        timeoutMs: deps.timeoutMs,
        contentType: contentTypeOf(file.name),
        sha256: file.sha256,
        resume,
        onState: (s) => {
          open = { key: where(file.name), uploadId: s.uploadId };
          save({ ...checkpoint, current: { name: file.name, ...s } });
        },
      });
      open = undefined;
      bytes += file.bytes;
      checkpoint = { delivered: [...checkpoint.delivered, { name: file.name, at: new Date().toISOString() }] };
      save(checkpoint);
    }
    const manifest = Buffer.from(JSON.stringify(manifestOf(task, files, where, checkpoint), null, 2));
    await withDeadline(bucket.client.putObject(bucket.bucket, where('manifest.json'), manifest, manifest.length, { 'Content-Type': 'application/json' }), deps.timeoutMs);
    return { files: files.map((f) => ({ ...f, delivered_to: bucket!.urlOf(where(f.name)) })), bytes };
  } catch (err) {
    const failure = await deliveryError(err, row.id, bucket, deps.timeoutMs);
    // A transient failure, a crash or a worker shutting down keep the upload for the next attempt.
    // With none to come (the task cancelled, a failure no retry mends, the last attempt), its parts
    // would stay billed in the customer's bucket until a lifecycle rule ran: abort it.
    const permanent = failure instanceof DomainError && !failure.retryable;
    if (bucket && open && (deps.abandoned?.() || deps.lastAttempt || permanent)) {
      await withDeadline(bucket.client.abortMultipartUpload(bucket.bucket, open.key, open.uploadId), deps.timeoutMs).catch(() => {});
    }
    throw failure;
  } finally {
    bucket?.close();
  }
}
