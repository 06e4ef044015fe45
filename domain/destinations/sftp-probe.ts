// POST /v1/destinations/:id/test for an SFTP server: each step a delivery takes, in order (dns,
// connect, host_key, auth, permission, write), the host key the server showed, and the first step
// that failed with its code. The write step does what a delivery does with a small probe file:
// written under a temporary name, flushed, renamed, checked and removed.
import type { ProjectRow } from '../../db/schema.js';
import { randomToken } from '../../platform/crypto.js';
import type { SftpRow } from './kinds.js';
import type { ProbeResult } from './probe-result.js';
import { requireDirectory } from './sftp-deliver.js';
import { classifySftp, describeSftpFailure } from './sftp-failures.js';
import { openSession, type Progress, SFTP_STEPS, type SftpSession } from './sftp-session.js';

const BODY = Buffer.from('download-center destination test\n');

export async function probeSftp(row: SftpRow, project: ProjectRow, keys: readonly string[], timeoutMs: number): Promise<ProbeResult> {
  const started = Date.now();
  const progress: Progress = { step: 'dns' };
  const probe = `${row.prefix}.download-center-probe-${randomToken(8)}`;
  let session: SftpSession | undefined;
  try {
    session = await openSession(row, project.destinationHosts, keys, timeoutMs, progress);
    progress.step = 'permission';
    await requireDirectory(session, row.prefix);
    const temp = `${probe}.part`;
    const handle = await session.open(temp, 'w');
    progress.step = 'write';
    await writeProbe(session, handle, temp, probe);
    return { ok: true, key: probe, latency_ms: Date.now() - started, ...seen(progress), steps: SFTP_STEPS.map((step) => ({ step, ok: true })) };
  } catch (err) {
    // Whatever the failed step left (the file under either name) goes; a refusal to remove it is the failure already named.
    if (session) for (const path of [`${probe}.part`, probe]) await session.unlink(path).catch(() => {});
    const code = classifySftp(err);
    const upTo = SFTP_STEPS.slice(0, SFTP_STEPS.indexOf(progress.step) + 1);
    return {
      ok: false,
      step: progress.step,
      error: { code, message: describeSftpFailure(code, err) },
      ...seen(progress),
      steps: upTo.map((step) => ({ step, ok: step !== progress.step })),
    };
  } finally {
    session?.end();
  }
}

const seen = (progress: Progress) => (progress.seen ? { host_key_sha256: progress.seen } : {});

async function writeProbe(session: SftpSession, handle: Buffer, temp: string, probe: string): Promise<void> {
  try {
    await session.write(handle, BODY, 0);
  } finally {
    await session.close(handle, true);
  }
  await session.replace(temp, probe);
  const stats = await session.stat(probe);
  if (stats?.size !== BODY.length) throw new Error(`the probe file holds ${stats?.size} bytes, not ${BODY.length}`);
  await session.unlink(probe);
}
