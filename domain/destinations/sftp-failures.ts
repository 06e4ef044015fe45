// What went wrong with an SFTP server, named in the codes an S3 bucket's failures use (the /test
// answer's, and a delivery's task error code), plus the two only SFTP has: a host key that is not
// the pinned one (never retried: a server that moved, or someone in between) and a directory that
// does not exist (found so while checking or making it; any other no-such-file is retried).
import { CancelledFailure } from '@temporalio/common';
import { SealError } from '../../platform/sealed.js';
import { DomainError } from '../errors.js';
import { classify, codeOf, detailOf, type ProbeFailure, TASK_CODE } from './failures.js';

export function classifySftp(err: unknown): ProbeFailure {
  const code = codeOf(err);
  const level = String((err as { level?: unknown })?.level ?? '');
  if (code === 'EHOSTKEY') return 'host_key';
  if (level === 'client-authentication' || /^Cannot parse privateKey/.test((err as Error)?.message ?? '')) return 'auth';
  if (level === 'client-timeout') return 'timeout';
  if (code === 'SFTP_PERMISSION_DENIED') return 'permission';
  // Only the destination's directory (or one of destination_path's) missing is a missing directory:
  // a temporary file gone (a partner's clean-up) is the upload's to mend (sftp-upload.ts).
  if (code === 'SFTP_NO_DIRECTORY' || code === 'ENOTDIR') return 'directory';
  return classify(err);
}

const SENTENCE: Record<ProbeFailure, string> = {
  host_not_allowed: "the SFTP server's host is not on the project's destination_hosts",
  blocked: "the SFTP server's host resolves to a link-local or cloud metadata address",
  dns: "the SFTP server's host name does not resolve",
  connect: 'the SFTP server refused or dropped the connection',
  timeout: 'the SFTP server did not answer in time',
  tls: 'the SSH handshake failed',
  host_key: "the SFTP server's host key is not the pinned host_key_sha256",
  auth: 'the SFTP server refused the user name, password or private key',
  bucket: "the SFTP server's directory does not exist",
  directory: "the destination's directory does not exist on the SFTP server (or is not a directory)",
  permission: 'the user may not create, write, rename or remove files in that directory',
  unknown: 'the SFTP server answered with an error',
};

/** A sentence for the failure, with the server's own words (an SFTP status or SSH error never holds a password or key). */
export function describeSftpFailure(kind: ProbeFailure, err: unknown): string {
  const detail = detailOf(err);
  return detail ? `${SENTENCE[kind]} (${detail})` : SENTENCE[kind];
}

/**
 * The failure as a delivery's error: a DomainError and a cancellation pass as they are, a sealed
 * secret that does not open is ours (as for S3), and the server's refusals no retry mends (host
 * key, credentials, a missing directory, no right to write) fail the task at once; the rest
 * (DNS, a refused or dropped connection, a timeout) is retried.
 */
export function sftpDeliveryError(err: unknown, destinationId: string): unknown {
  if (err instanceof DomainError || err instanceof CancelledFailure) return err;
  if (err instanceof SealError && err.missingKey) {
    return DomainError.transient('internal_error', `destination ${destinationId}: its secret is sealed with key ${err.missingKey}, which this process's DESTINATION_KEYS does not hold (a rotation not yet on every process, or a key dropped while still in use)`);
  }
  if (err instanceof SealError) return new DomainError('destination_auth_failed', `destination ${destinationId}: its secret cannot be opened (${err.message}); create the destination again`);
  const kind = classifySftp(err);
  const code = TASK_CODE[kind];
  return new DomainError(code, `destination ${destinationId}: ${describeSftpFailure(kind, err)}`, { retryable: code === 'destination_unreachable' });
}
