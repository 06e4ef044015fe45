// A task's delivery: every file into its destination, then manifest.json last, the completion
// marker a reader waits for (it lists each file with its bytes, rows and sha256). What was done
// is a checkpoint the activity heartbeats, so an attempt after a crash picks up where it stopped.
import { Readable } from 'node:stream';
import type { Db } from '../../db/client.js';
import type { StoredFile, TaskRow } from '../../db/schema.js';
import { contentTypeOf } from '../../platform/http.js';
import type { Storage } from '../../platform/storage/index.js';
import { requireProject } from '../projects/projects.js';
import { type Bucket, connect } from './connect.js';
import { withDeadline } from './deadline.js';
import { deliveryError } from './failures.js';
import { objectKey } from './path.js';
import { findDestination } from './store.js';
import { uploadFile, type UploadState } from './upload.js';
import { DomainError } from '../errors.js';

export interface DeliveryCheckpoint {
  /** The files already in the bucket, whole, and when each got there. */
  delivered: { name: string; at: string }[];
  /** The multipart upload of the file being sent. */
  current?: { name: string } & UploadState;
}

export interface DeliveryDeps {
  db: Db;
  storage: Storage;
  keys: readonly string[];
  partBytes: number;
  timeoutMs: number;
  /** True once the task was cancelled: an open upload is then aborted, not kept for a next attempt. */
  abandoned?: () => boolean;
  /** The retry policy's last attempt: an upload open when it fails has no next attempt either. */
  lastAttempt?: boolean;
}

export interface DeliveryReport {
  files: StoredFile[];
  bytes: number;
}

/** Where the task asked its files to go (tasks.options, validated at submission). */
export const destinationOf = (task: Pick<TaskRow, 'options'>) => ({
  id: task.options.destination_id ?? null,
  path: task.options.destination_path,
});

export async function deliverTask(deps: DeliveryDeps, task: TaskRow, files: StoredFile[], checkpoint: DeliveryCheckpoint, save: (c: DeliveryCheckpoint) => void): Promise<DeliveryReport> {
  const { id, path } = destinationOf(task);
  if (!id) throw new DomainError('internal_error', `task ${task.id} has no destination`);
  const project = await requireProject(deps.db, task.projectId);
  const row = await findDestination(deps.db, project.id, id);
  if (!row) throw new DomainError('destination_not_found', `destination ${id} was deleted before the task's files were delivered`);
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

/**
 * A stored file's bytes. Our own store failing (opening or in the middle of the stream) is
 * storage_failed, retried like any store that blinked: never the customer's bucket's fault.
 */
async function fromStore(storage: Storage, key: string): Promise<Readable> {
  const failed = (err: unknown) => DomainError.transient('storage_failed', `reading ${key} from the file store: ${(err as Error)?.message ?? String(err)}`);
  const stream = await storage.getStream(key).catch((err: unknown) => {
    throw failed(err);
  });
  return Readable.from(
    (async function* () {
      try {
        yield* stream;
      } catch (err) {
        throw failed(err);
      }
    })(),
  );
}

function manifestOf(task: TaskRow, files: StoredFile[], where: (name: string) => string, done: DeliveryCheckpoint) {
  const now = new Date().toISOString();
  const at = (name: string) => done.delivered.find((d) => d.name === name)?.at ?? now;
  return {
    task: { task_id: task.id, project_id: task.projectId, type: task.type, file_name: task.fileName, created_at: task.createdAt.toISOString() },
    created_at: now,
    files: files.map((f) => ({ name: f.name, key: where(f.name), bytes: f.bytes, rows: f.rows, sha256: f.sha256, created_at: at(f.name) })),
  };
}
