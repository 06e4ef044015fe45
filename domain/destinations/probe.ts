// POST /v1/destinations/:id/test: write a small object where deliveries go, remove it, start and
// abort a multipart upload there (what a file over DELIVERY_PART_BYTES needs), and say which step
// failed and why (dns, tls, auth, bucket, permission …), so a wrong setting shows before a task.
import type { DestinationRow, ProjectRow } from '../../db/schema.js';
import { randomToken } from '../../platform/crypto.js';
import { type Bucket, connect } from './connect.js';
import { describeFailure, explain, type ProbeFailure } from './failures.js';
import { withDeadline } from './deadline.js';
import type { Minio } from './upload.js';

export type ProbeResult =
  | { ok: true; key: string; latency_ms: number }
  | { ok: false; step: ProbeStep; error: { code: ProbeFailure; message: string } };

export const PROBE_STEPS = ['connect', 'write', 'remove', 'multipart'] as const;
type ProbeStep = (typeof PROBE_STEPS)[number];

export async function probeDestination(row: DestinationRow, project: ProjectRow, keys: readonly string[], timeoutMs: number): Promise<ProbeResult> {
  const started = Date.now();
  const key = `${row.prefix}.download-center-probe-${randomToken(8)}`;
  let step: ProbeStep = 'connect';
  let bucket;
  try {
    bucket = connect(row, project.destinationHosts, keys);
    step = 'write';
    const body = Buffer.from('download-center destination test\n');
    await withDeadline(bucket.client.putObject(bucket.bucket, key, body, body.length, { 'Content-Type': 'text/plain' }), timeoutMs);
    step = 'remove';
    await withDeadline(bucket.client.removeObject(bucket.bucket, key), timeoutMs);
    step = 'multipart';
    await probeMultipart(bucket, key, timeoutMs);
    return { ok: true, key, latency_ms: Date.now() - started };
  } catch (err) {
    const code = await explain(err, bucket, timeoutMs);
    return { ok: false, step, error: { code, message: describeFailure(code, err) } };
  } finally {
    bucket?.close();
  }
}

/** The requests of a multipart delivery (domain/destinations/upload.ts) bar the parts: list the key's open uploads, start one, list its parts, abort it. */
async function probeMultipart(bucket: Bucket, key: string, timeoutMs: number): Promise<void> {
  const client = bucket.client as Minio;
  await withDeadline(client.findUploadId(bucket.bucket, key), timeoutMs);
  const uploadId = await withDeadline(client.initiateNewMultipartUpload(bucket.bucket, key, { 'Content-Type': 'text/plain' }), timeoutMs);
  const listed = await withDeadline(client.listParts(bucket.bucket, key, uploadId), timeoutMs).then(
    () => null,
    (err: unknown) => ({ err }),
  );
  // Aborted whatever the listing said: the probe leaves no open upload behind.
  await withDeadline(client.abortMultipartUpload(bucket.bucket, key, uploadId), timeoutMs);
  if (listed) throw listed.err;
}
