// POST /v1/destinations/:id/test: write a small object where deliveries go, remove it, start and
// abort a multipart upload there (what a file over DELIVERY_PART_BYTES needs), and say which step
// failed and why (dns, tls, auth, bucket, permission …), so a wrong setting shows before a task.
// An SFTP server's test is sftp-probe.ts.
import type { DestinationRow, ProjectRow } from '../../db/schema.js';
import { randomToken } from '../../platform/crypto.js';
import { type Bucket, connect } from './connect.js';
import { describeFailure, explain } from './failures.js';
import { withDeadline } from './deadline.js';
import { isS3, isSftp, malformed } from './kinds.js';
import type { ProbeResult, ProbeStep } from './probe-result.js';
import { probeSftp } from './sftp-probe.js';
import type { Minio } from './upload.js';

export { PROBE_STEPS, type ProbeResult } from './probe-result.js';

export async function probeDestination(row: DestinationRow, project: ProjectRow, keys: readonly string[], timeoutMs: number): Promise<ProbeResult> {
  if (isSftp(row)) return probeSftp(row, project, keys, timeoutMs);
  if (!isS3(row)) throw malformed(row);
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
