// One file into the customer's bucket, exactly once whatever dies meanwhile. Small files are one
// PUT (a PUT again replaces the object whole). Big ones are a multipart upload whose id and parts
// the caller heartbeats: an attempt after a crash continues the same upload from the parts the
// bucket already holds, and completes it; an upload a crash left unrecorded is aborted first. An
// object only appears when its upload completes, so the key never holds a partial file.
import type { Readable } from 'node:stream';
import { DomainError } from '../errors.js';
import type { Bucket } from './connect.js';
import { withDeadline } from './deadline.js';
import { newHash, partsOf } from './parts.js';

export interface PartDone {
  part: number;
  etag: string;
}

export interface UploadState {
  uploadId: string;
  parts: PartDone[];
}

export interface UploadOptions {
  partBytes: number;
  /** Each request's deadline. */
  timeoutMs: number;
  contentType: string;
  sha256: string;
  /** The upload this file had when the last attempt stopped (its heartbeat). */
  resume?: UploadState | undefined;
  /** Called after the upload starts and after each part: the caller heartbeats it (and aborts the upload when no attempt will come back for it). */
  onState(state: UploadState): void;
}

/** The minio client with the multipart calls it has but does not declare. */
export type Minio = Bucket['client'] & { listParts(b: string, k: string, id: string): Promise<{ part: number; etag: string; size: number }[]> };

/** Our stored file is not the one the task recorded: no retry reads other bytes, so the task fails. */
function checkSha(got: string, want: string, key: string): void {
  if (got !== want) throw new DomainError('storage_failed', `the stored file for ${key} does not match its sha256 (${got} ≠ ${want})`);
}

export async function uploadFile(bucket: Bucket, key: string, open: () => Promise<Readable>, size: number, opts: UploadOptions): Promise<void> {
  const hash = newHash();
  if (size <= opts.partBytes) {
    const chunks: Buffer[] = [];
    for await (const c of await open()) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    checkSha(hash.update(body).digest('hex'), opts.sha256, key);
    await withDeadline(bucket.client.putObject(bucket.bucket, key, body, body.length, { 'Content-Type': opts.contentType }), opts.timeoutMs);
    return;
  }
  const state = (await resumable(bucket, key, opts)) ?? (await begin(bucket, key, opts));
  opts.onState(state);
  for await (const part of partsOf(await open(), opts.partBytes, state.parts.length + 1, hash)) {
    const done = await withDeadline(
      bucket.client.uploadPart({ bucketName: bucket.bucket, objectName: key, uploadID: state.uploadId, partNumber: part.number, headers: { 'Content-Length': part.body.length } }, part.body),
      opts.timeoutMs,
    );
    state.parts.push({ part: part.number, etag: done.etag });
    opts.onState(state);
  }
  checkSha(hash.digest('hex'), opts.sha256, key);
  await withDeadline(bucket.client.completeMultipartUpload(bucket.bucket, key, state.uploadId, state.parts), opts.timeoutMs);
}

/** The recorded upload, still open on the bucket, with the leading parts it holds whole; null to start over. */
async function resumable(bucket: Bucket, key: string, opts: UploadOptions): Promise<UploadState | null> {
  if (!opts.resume) return null;
  try {
    const listed = await withDeadline((bucket.client as Minio).listParts(bucket.bucket, key, opts.resume.uploadId), opts.timeoutMs);
    const parts: PartDone[] = [];
    // Parts 1..n, each of the full part size: a part appears only once uploaded whole.
    for (const p of listed.sort((a, b) => a.part - b.part)) {
      if (p.part !== parts.length + 1 || p.size !== opts.partBytes) break;
      parts.push({ part: p.part, etag: p.etag });
    }
    return { uploadId: opts.resume.uploadId, parts };
  } catch (err) {
    if ((err as { code?: string }).code === 'NoSuchUpload') return null;
    throw err;
  }
}

/** A new multipart upload, after aborting the ones a crash left without a record. */
async function begin(bucket: Bucket, key: string, opts: UploadOptions): Promise<UploadState> {
  for (let i = 0; i < 10; i++) {
    const stale = await withDeadline(bucket.client.findUploadId(bucket.bucket, key), opts.timeoutMs);
    if (!stale) break;
    await withDeadline(bucket.client.abortMultipartUpload(bucket.bucket, key, stale), opts.timeoutMs);
  }
  const uploadId = await withDeadline(bucket.client.initiateNewMultipartUpload(bucket.bucket, key, { 'Content-Type': opts.contentType }), opts.timeoutMs);
  return { uploadId, parts: [] };
}
