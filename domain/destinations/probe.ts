// POST /v1/destinations/:id/test: write a small object where deliveries go, remove it, and say which
// step failed and why (dns, tls, auth, bucket, permission …), so a wrong setting shows before a task.
import type { DestinationRow, ProjectRow } from '../../db/schema.js';
import { randomToken } from '../../platform/crypto.js';
import { connect } from './connect.js';
import { describeFailure, explain, type ProbeFailure } from './failures.js';
import { withDeadline } from './deadline.js';

export type ProbeResult =
  | { ok: true; key: string; latency_ms: number }
  | { ok: false; step: 'connect' | 'write' | 'remove'; error: { code: ProbeFailure; message: string } };

export async function probeDestination(row: DestinationRow, project: ProjectRow, keys: readonly string[], timeoutMs: number): Promise<ProbeResult> {
  const started = Date.now();
  const key = `${row.prefix}.download-center-probe-${randomToken(8)}`;
  let step: 'connect' | 'write' | 'remove' = 'connect';
  let bucket;
  try {
    bucket = connect(row, project.destinationHosts, keys);
    step = 'write';
    const body = Buffer.from('download-center destination test\n');
    await withDeadline(bucket.client.putObject(bucket.bucket, key, body, body.length, { 'Content-Type': 'text/plain' }), timeoutMs);
    step = 'remove';
    await withDeadline(bucket.client.removeObject(bucket.bucket, key), timeoutMs);
    return { ok: true, key, latency_ms: Date.now() - started };
  } catch (err) {
    const code = await explain(err, bucket, timeoutMs);
    return { ok: false, step, error: { code, message: describeFailure(code, err) } };
  } finally {
    bucket?.close();
  }
}
