import type { Context } from 'hono';
import type { Readable } from 'node:stream';
import { stream } from 'hono/streaming';
import type { StreamingApi } from 'hono/utils/stream';
import type { StoredFile, TaskRow } from '../db/schema.js';
import type { Db } from '../db/client.js';
import { type DownloadBy, type DownloadVia, recordDownload } from '../domain/downloads/records.js';
import type { Config } from '../platform/config.js';
import { contentDisposition, contentTypeOf } from '../platform/http.js';
import { logger } from '../platform/logger.js';
import type { Storage } from '../platform/storage/index.js';
import type { ByteRange } from '../platform/storage/types.js';
import { DomainError } from '../domain/errors.js';
import { clientAddress } from './client-address.js';
import { contentRangeOf, etagOf, rangeOf } from './range.js';
import type { AppEnv } from './types.js';

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

/** What the record of a download needs besides the file: where it goes and who asked (docs/downloads.md). */
export interface DownloadAudit {
  db: Db;
  config: Config;
  task: TaskRow;
  via: DownloadVia;
  by: DownloadBy;
}

/** Who asked, from the request's credential: the project's key or an operator session's token. */
export function principalBy(c: Context<AppEnv>): DownloadBy {
  const p = c.get('principal');
  if (p.kind === 'operator') return { kind: 'operator', id: p.operatorId, sessionId: p.sessionId };
  return { kind: 'project', id: c.get('project').id };
}

/**
 * The file, streamed, or the one byte range a GET asked for (206, api/range.ts); when the response
 * ends (sent to its end, or the client went away) the download is recorded with the bytes handed
 * to the connection. A HEAD answers the headers alone: nothing is read and nothing is recorded.
 */
export async function sendFile(c: Context, storage: Storage, file: StoredFile, audit: DownloadAudit): Promise<Response> {
  const range = fileHeaders(c, file, audit.via);
  if (c.req.method === 'HEAD') return c.body(null);
  let body: Readable;
  try {
    body = await storage.getStream(file.key, range ?? undefined);
  } catch {
    throw new DomainError('expired', 'the file is no longer stored');
  }
  const seen = { ip: clientAddress(c, audit.config), userAgent: c.req.header('user-agent') ?? '', startedAt: new Date() };
  const contentRange = range ? contentRangeOf(range, file.bytes) : null;
  return stream(c, async (s) => {
    const bytes = await pipeCounted(body, s, audit.task.id);
    // Complete: the whole file went in this answer, or this piece completed a resumed download (records.ts).
    await record(audit, file, { ...seen, range: contentRange, bytes, complete: !s.aborted && bytes === file.bytes });
  });
}

/** The answer's headers (and 206 for a range it serves); the range to read, or null for the whole file. */
function fileHeaders(c: Context, file: StoredFile, via: DownloadVia): ByteRange | null {
  const etag = etagOf(file.sha256);
  // A sync export's file is the answer of a POST, where Range means nothing.
  const range = c.req.method === 'GET' && via !== 'sync' ? rangeOf(c.req.header('range'), c.req.header('if-range'), etag, file.bytes) : null;
  c.header('Content-Type', contentTypeOf(file.name));
  c.header('Content-Length', String(range ? range.end - range.start + 1 : file.bytes));
  c.header('Content-Disposition', contentDisposition(file.name));
  c.header('X-Content-SHA256', file.sha256);
  c.header('ETag', etag);
  c.header('Accept-Ranges', 'bytes');
  if (range) {
    c.status(206);
    c.header('Content-Range', contentRangeOf(range, file.bytes));
  }
  return range;
}

/** Copies the store's stream into the answer until it ends or the client goes away: the bytes sent. */
async function pipeCounted(body: Readable, s: StreamingApi, taskId: string): Promise<number> {
  let bytes = 0;
  s.onAbort(() => {
    body.destroy();
  });
  try {
    for await (const chunk of body) {
      // A write after the client went away resolves without sending (hono swallows its error).
      await s.write(chunk as Uint8Array);
      if (s.aborted) break;
      bytes += (chunk as Uint8Array).byteLength;
    }
  } catch (err) {
    // The store's stream destroyed by the abort ends the loop with an error: the record says why.
    if (!s.aborted) logger('download').warn({ err, task_id: taskId }, 'reading a file from the store failed mid-download');
  }
  return bytes;
}

async function record(audit: DownloadAudit, file: StoredFile, sent: { ip: string; userAgent: string; range: string | null; bytes: number; complete: boolean; startedAt: Date }) {
  const { task } = audit;
  try {
    const fileIndex = task.files.findIndex((f) => f.name === file.name);
    const resume = { fileSize: file.bytes, filesMadeAt: task.finishedAt };
    await recordDownload(audit.db, { taskId: task.id, projectId: task.projectId, fileName: file.name, fileIndex, via: audit.via, by: audit.by, ...sent, ...resume });
  } catch (err) {
    // The file has been sent: a record that could not be written is logged, never the client's error.
    logger('download').error({ err, task_id: task.id }, 'a download could not be recorded');
  }
}

/**
 * A Buffer as a response body without copying it (`new Uint8Array(buf)` copies): Hono's types want
 * a Uint8Array over an ArrayBuffer, which a Buffer's memory is.
 */
export const bodyOf = (buf: Buffer): Uint8Array<ArrayBuffer> => new Uint8Array(buf.buffer as ArrayBuffer, buf.byteOffset, buf.byteLength);
