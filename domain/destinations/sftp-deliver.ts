// A task's delivery onto an SFTP server: every file under a temporary name, renamed when complete
// (sftp-upload.ts), then manifest.json the same way, last. The destination's directory must exist;
// the directories of destination_path under it are made as needed. A temporary file left by a
// failure no attempt will come back for (the task cancelled, a refusal no retry mends, the last
// attempt) is removed; any other failure keeps it for the next attempt to write on from its end.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { StoredFile, TaskRow } from '../../db/schema.js';
import { DomainError } from '../errors.js';
import { type DeliveryCheckpoint, type DeliveryDeps, type DeliveryReport, destinationOf, fromStore, manifestOf } from './delivery.js';
import type { SftpRow } from './kinds.js';
import { objectKey } from './path.js';
import { sftpDeliveryError } from './sftp-failures.js';
import { codedError, openSession, type SftpSession } from './sftp-session.js';
import { putFile, tempPathOf } from './sftp-upload.js';
import { authority } from './refusal.js';

export async function deliverSftp(
  deps: DeliveryDeps,
  task: TaskRow,
  row: SftpRow,
  hosts: readonly string[],
  files: StoredFile[],
  checkpoint: DeliveryCheckpoint,
  save: (c: DeliveryCheckpoint) => void,
): Promise<DeliveryReport> {
  const where = (name: string) => objectKey(row.prefix, destinationOf(task).path, { taskId: task.id, createdAt: task.createdAt }, name);
  let session: SftpSession | undefined;
  // The temporary file being written, if any: what to remove when no attempt will come back for it.
  let temp: string | undefined;
  try {
    session = await openSession(row, hosts, deps.keys, deps.timeoutMs);
    await requireDirectory(session, row.prefix);
    let bytes = 0;
    let resumedBytes = 0;
    for (const file of files) {
      if (checkpoint.delivered.some((d) => d.name === file.name)) continue;
      const target = where(file.name);
      await makeParents(session, row.prefix, target);
      temp = tempPathOf(target, task.id, file.sha256);
      const put = await putFile(session, { path: target, bytes: file.bytes, sha256: file.sha256 }, temp, () => fromStore(deps.storage, file.key), () => save(checkpoint));
      resumedBytes += put.resumedFrom;
      temp = undefined;
      bytes += file.bytes;
      checkpoint = { delivered: [...checkpoint.delivered, { name: file.name, at: new Date().toISOString() }] };
      save(checkpoint);
    }
    const manifest = Buffer.from(JSON.stringify(manifestOf(task, files, where, checkpoint), null, 2));
    const sha = createHash('sha256').update(manifest).digest('hex');
    const manifestPath = where('manifest.json');
    await makeParents(session, row.prefix, manifestPath);
    // Named by the task alone: its text (its created_at) differs on each attempt, and a temporary
    // file an attempt killed mid-write left is then overwritten, not left beside it.
    temp = tempPathOf(manifestPath, task.id, 'manifest');
    await putFile(session, { path: manifestPath, bytes: manifest.length, sha256: sha }, temp, async () => Readable.from([manifest]), () => {});
    temp = undefined;
    return { files: files.map((f) => ({ ...f, delivered_to: sftpUrl(row, where(f.name)) })), bytes, resumedBytes };
  } catch (err) {
    const failure = sftpDeliveryError(err, row.id);
    const permanent = failure instanceof DomainError && !failure.retryable;
    if (session && temp && (deps.abandoned?.() || deps.lastAttempt || permanent)) await session.unlink(temp).catch(() => {});
    throw failure;
  } finally {
    session?.end();
  }
}

/** How a delivered file's place is shown: `sftp://host:port/path`. */
const sftpUrl = (row: SftpRow, path: string): string => `sftp://${authority(row.sftp.host, row.sftp.port)}${path}`;

/** The destination's own directory must be there: a delivery makes only the ones below it. */
export async function requireDirectory(session: SftpSession, dir: string): Promise<void> {
  const path = dir.replace(/\/+$/, '') || '/';
  const stats = await session.stat(path);
  if (!stats) throw codedError('SFTP_NO_DIRECTORY', `${path} does not exist`);
  if (!stats.isDirectory()) throw codedError('ENOTDIR', `${path} is not a directory`);
}

/** The directories between the destination's directory and the file's, made when missing. */
async function makeParents(session: SftpSession, base: string, target: string): Promise<void> {
  const below = target.slice(base.length).split('/').slice(0, -1);
  let dir = base.replace(/\/+$/, '');
  for (const segment of below) {
    dir = `${dir}/${segment}`;
    const stats = await session.stat(dir);
    if (stats?.isDirectory()) continue;
    if (stats) throw codedError('ENOTDIR', `${dir} is not a directory`);
    // Another delivery into the same path may make it first: what counts is that it is there after.
    await session.mkdir(dir).catch(async (err: { code?: unknown; message?: string }) => {
      if ((await session.stat(dir))?.isDirectory()) return;
      // The directory above it went (no such file): a missing directory, not a vanished file.
      throw err.code === 'SFTP_NO_SUCH_FILE' ? codedError('SFTP_NO_DIRECTORY', err.message ?? `mkdir ${dir}`) : err;
    });
  }
}
