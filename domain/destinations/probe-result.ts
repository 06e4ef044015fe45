// What POST /v1/destinations/:id/test answers, for either kind: ok, or the step that failed and why.
import type { ProbeFailure } from './failures.js';
import { SFTP_STEPS, type SftpStep } from './sftp-session.js';

const S3_STEPS = ['connect', 'write', 'remove', 'multipart'] as const;
/** An S3 bucket's steps, then those only an SFTP server's test has. */
export const PROBE_STEPS = [...S3_STEPS, ...SFTP_STEPS.filter((s) => !(S3_STEPS as readonly string[]).includes(s))] as unknown as readonly [ProbeStep, ...ProbeStep[]];
export type ProbeStep = (typeof S3_STEPS)[number] | SftpStep;

/** An SFTP server's test says more: the host key it saw, and each step's outcome up to the one that failed. */
export interface SftpProbeDetail {
  host_key_sha256?: string;
  steps?: { step: SftpStep; ok: boolean }[];
}

export type ProbeResult =
  | ({ ok: true; key: string; latency_ms: number } & SftpProbeDetail)
  | ({ ok: false; step: ProbeStep; error: { code: ProbeFailure; message: string } } & SftpProbeDetail);
