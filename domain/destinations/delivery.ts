// What a delivery of either kind shares: its checkpoint and dependencies, where the task's files
// go, reading a stored file, and the manifest written last.
import { Readable } from 'node:stream';
import type { Db } from '../../db/client.js';
import type { StoredFile, TaskRow } from '../../db/schema.js';
import type { Storage } from '../../platform/storage/index.js';
import { DomainError } from '../errors.js';
import type { UploadState } from './upload.js';

export interface DeliveryCheckpoint {
  /** The files already in the bucket (or on the SFTP server), whole, and when each got there. */
  delivered: { name: string; at: string }[];
  /** The multipart upload of the file being sent (S3; an SFTP upload finds its temporary file by name). */
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
  /** SFTP: bytes an earlier attempt had already written to temporary files, which this one wrote on from. */
  resumedBytes?: number;
}

/** Where the task asked its files to go (tasks.options, validated at submission). */
export const destinationOf = (task: Pick<TaskRow, 'options'>) => ({
  id: task.options.destination_id ?? null,
  path: task.options.destination_path,
});

/**
 * A stored file's bytes. Our own store failing (opening or in the middle of the stream) is
 * storage_failed, retried like any store that blinked: never the customer's bucket's fault.
 */
export async function fromStore(storage: Storage, key: string): Promise<Readable> {
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

export function manifestOf(task: TaskRow, files: StoredFile[], where: (name: string) => string, done: DeliveryCheckpoint) {
  const now = new Date().toISOString();
  const at = (name: string) => done.delivered.find((d) => d.name === name)?.at ?? now;
  return {
    task: { task_id: task.id, project_id: task.projectId, type: task.type, file_name: task.fileName, created_at: task.createdAt.toISOString() },
    created_at: now,
    files: files.map((f) => ({ name: f.name, key: where(f.name), bytes: f.bytes, rows: f.rows, sha256: f.sha256, created_at: at(f.name) })),
  };
}
