// One file onto an SFTP server, never partial under its final name: the bytes go to a temporary
// name beside it (`<name>.part-<token>`), are flushed, checked (size, and the sha256 of what we
// read), then renamed over the final name in one step. The token is the same on every attempt of
// the task, so an attempt after a crash finds the temporary file, checks the tail it holds against
// our bytes, and writes on from its end; a tail that does not match starts the file over, and so
// does a temporary file that vanished meanwhile (a partner clearing `.part` files between a crash
// and the resume).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DomainError } from '../errors.js';
import type { SftpSession } from './sftp-session.js';

/** Each write request's size: under every server's packet limit (OpenSSH takes 256 KiB). */
const CHUNK = 32 * 1024;
/** Writes in flight at once: enough to fill a link with some latency, one round trip per window. */
const IN_FLIGHT = 8;
/**
 * How much of a temporary file's end a resume reads back and compares: more than the writes in
 * flight when a worker died (a server applies them in order, but a hole, if any, lies there).
 */
const VERIFY_BYTES = 1024 * 1024;
/** How often (bytes written) the caller hears of progress: its heartbeat, and where a cancel is seen. */
const PROGRESS_BYTES = 4 * 1024 * 1024;

export interface SftpFile {
  /** The final path on the server. */
  path: string;
  bytes: number;
  sha256: string;
}

/** The temporary name of a file for one task: the same on every attempt, another task's never. */
export const tempPathOf = (path: string, taskId: string, sha256: string): string => `${path}.part-${createHash('sha256').update(`${taskId}:${sha256}`).digest('hex').slice(0, 16)}`;

export interface PutResult {
  /** Bytes that were already on the server from an earlier attempt. */
  resumedFrom: number;
}

/** The tail of a file that did not match ours: this attempt starts it over. */
class TailMismatch extends Error {}

/** The temporary file went while we wrote it or before the rename (a partner's clean-up of `.part` files). */
const vanished = (err: unknown): boolean => (err as { code?: unknown })?.code === 'SFTP_NO_SUCH_FILE';

export async function putFile(session: SftpSession, file: SftpFile, temp: string, open: () => Promise<Readable>, progress: () => void): Promise<PutResult> {
  const existing = await session.stat(temp);
  const offset = existing?.size !== undefined && existing.size <= file.bytes ? existing.size : 0;
  try {
    await writeFrom(session, file, temp, await open(), offset, progress);
    await session.replace(temp, file.path);
    return { resumedFrom: offset };
  } catch (err) {
    // Once: a file that vanishes again is the retry's (a no-such-file the task does not fail on).
    if (!(err instanceof TailMismatch) && !vanished(err)) throw err;
    await writeFrom(session, file, temp, await open(), 0, progress);
    await session.replace(temp, file.path);
    return { resumedFrom: 0 };
  }
}

/** Our bytes from the start (all hashed), written from `offset` on after checking the tail before it. */
async function writeFrom(session: SftpSession, file: SftpFile, temp: string, stream: Readable, offset: number, progress: () => void): Promise<void> {
  const hash = createHash('sha256');
  const handle = await session.open(temp, offset > 0 ? 'r+' : 'w');
  let closed = false;
  try {
    const tailFrom = Math.max(0, offset - VERIFY_BYTES);
    const tail: Buffer[] = [];
    const inFlight: Promise<void>[] = [];
    let pos = 0;
    let told = offset;
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      hash.update(buf);
      const start = pos;
      pos += buf.length;
      if (start < offset && pos > tailFrom) tail.push(buf.subarray(Math.max(0, tailFrom - start), Math.min(buf.length, offset - start)));
      if (start < offset && pos >= offset) await checkTail(session, handle, Buffer.concat(tail), tailFrom);
      for (let at = Math.max(start, offset); at < pos; at += CHUNK) {
        if (inFlight.length >= IN_FLIGHT) await inFlight.shift();
        const write = session.write(handle, buf.subarray(at - start, Math.min(at - start + CHUNK, buf.length)), at);
        // Awaited in turn below; handled now, so a failure while an earlier write is awaited is not unhandled.
        write.catch(() => {});
        inFlight.push(write);
      }
      if (pos - told >= PROGRESS_BYTES) {
        told = pos;
        progress();
      }
    }
    await Promise.all(inFlight);
    if (offset > 0 && pos < offset) throw new TailMismatch();
    checkOurs(hash.digest('hex'), pos, file);
    closed = true;
    await session.close(handle, true);
    const written = await session.stat(temp);
    if (!written) throw Object.assign(new Error(`${temp} is gone after the upload`), { code: 'SFTP_NO_SUCH_FILE' });
    if (written.size !== file.bytes) throw Object.assign(new Error(`${temp} holds ${written.size} bytes after the upload, not ${file.bytes}`), { code: 'SFTP_SIZE' });
  } finally {
    if (!closed) await session.close(handle, false).catch(() => {});
  }
}

async function checkTail(session: SftpSession, handle: Buffer, ours: Buffer, from: number): Promise<void> {
  const theirs = await session.read(handle, ours.length, from);
  if (!theirs.equals(ours)) throw new TailMismatch();
}

/** Our stored file is not the one the task recorded: no retry reads other bytes, so the task fails. */
function checkOurs(sha: string, bytes: number, file: SftpFile): void {
  if (sha !== file.sha256 || bytes !== file.bytes) {
    throw new DomainError('storage_failed', `the stored file for ${file.path} does not match its sha256 or size (${sha}, ${bytes} bytes; recorded ${file.sha256}, ${file.bytes})`);
  }
}
