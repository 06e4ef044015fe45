import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import type { StoredFile, TaskRow } from '../db/schema.js';
import type { Storage } from '../platform/storage/index.js';
import { DomainError } from '../domain/errors.js';

const contentTypes: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  zip: 'application/zip',
};

/** The Content-Type of a file we serve, by its extension. */
export const contentTypeOf = (name: string): string => contentTypes[name.split('.').pop() ?? ''] ?? 'application/octet-stream';

/** The file a plain download gives: the only file, or the zip that holds all parts. */
export function primaryFile(task: TaskRow): StoredFile | undefined {
  return task.files.length === 1 ? task.files[0] : task.files.find((f) => f.name.endsWith('.zip'));
}

export function assertDownloadable(task: TaskRow): void {
  if (task.status === 'expired') throw new DomainError('expired', 'the files of this task have expired and were removed');
  if (task.status !== 'succeeded') throw new DomainError('not_ready', `the task is ${task.status}; files exist once it has succeeded`);
}

/** RFC 6266: an ASCII `filename` for old clients (and curl -OJ) beside the exact UTF-8 `filename*`. */
export function contentDisposition(name: string): string {
  const ascii = name.normalize('NFKD').replace(/[^\x20-\x7e]/g, '_').replace(/["\\%;]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
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
