import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import type { StoredFile, TaskRow } from '../db/schema.js';
import { contentDisposition, contentTypeOf } from '../platform/http.js';
import type { Storage } from '../platform/storage/index.js';
import { DomainError } from '../domain/errors.js';

/** The file a plain download gives: the only file, or the zip that holds all parts. */
export function primaryFile(task: TaskRow): StoredFile | undefined {
  return task.files.length === 1 ? task.files[0] : task.files.find((f) => f.name.endsWith('.zip'));
}

export function assertDownloadable(task: TaskRow): void {
  if (task.status === 'expired') throw new DomainError('expired', 'the files of this task have expired and were removed');
  // A failed delivery keeps the task's files downloadable here until they expire (docs/destinations.md).
  if (task.status === 'failed' && task.files.length > 0) return;
  if (task.status !== 'succeeded') throw new DomainError('not_ready', `the task is ${task.status}; files exist once it has succeeded`);
}

export async function sendFile(c: Context, storage: Storage, file: StoredFile): Promise<Response> {
  let body;
  try {
    body = await storage.getStream(file.key);
  } catch {
    throw new DomainError('expired', 'the file is no longer stored');
  }
  c.header('Content-Type', contentTypeOf(file.name));
  c.header('Content-Length', String(file.bytes));
  c.header('Content-Disposition', contentDisposition(file.name));
  c.header('X-Content-SHA256', file.sha256);
  return stream(c, async (s) => {
    s.onAbort(() => {
      body.destroy();
    });
    for await (const chunk of body) await s.write(chunk as Uint8Array);
  });
}

/**
 * A Buffer as a response body without copying it (`new Uint8Array(buf)` copies): Hono's types want
 * a Uint8Array over an ArrayBuffer, which a Buffer's memory is.
 */
export const bodyOf = (buf: Buffer): Uint8Array<ArrayBuffer> => new Uint8Array(buf.buffer as ArrayBuffer, buf.byteOffset, buf.byteLength);
