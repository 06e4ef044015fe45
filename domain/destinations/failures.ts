// What went wrong talking to a customer's bucket, named: the /test answer's code, and the task error
// code a delivery fails with (permanent ones at once, the rest after retries with backoff). An SFTP
// server's failures have their own reading (sftp-failures.ts) into the same codes, and two of its own.
import { CancelledFailure } from '@temporalio/common';
import type { TaskErrorCode } from '../../model/errors.js';
import { SealError } from '../../platform/sealed.js';
import { DomainError } from '../errors.js';
import { withDeadline } from './deadline.js';

export const PROBE_FAILURES = ['host_not_allowed', 'blocked', 'dns', 'connect', 'timeout', 'tls', 'host_key', 'auth', 'bucket', 'directory', 'permission', 'unknown'] as const;
export type ProbeFailure = (typeof PROBE_FAILURES)[number];

// S3 error codes (AWS's list; MinIO, R2 and SeaweedFS answer the same ones).
const S3_AUTH = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidToken', 'ExpiredToken', 'AuthorizationHeaderMalformed', 'InvalidSecurity']);
const S3_BUCKET = new Set(['NoSuchBucket']);
const S3_PERMISSION = new Set(['AccessDenied', 'AllAccessDisabled', 'AccountProblem']);
// The request itself refused, for reasons no retry changes: a key or argument the server does not
// take, a body over its limits, a method it does not implement, a bucket in another region.
const S3_REFUSED = new Set([
  'KeyTooLongError', 'InvalidArgument', 'InvalidRequest', 'InvalidBucketName', 'InvalidURI', 'EntityTooLarge', 'EntityTooSmall', 'MetadataTooLarge',
  'MalformedXML', 'InvalidStorageClass', 'InvalidObjectState', 'MissingContentLength', 'MethodNotAllowed', 'NotImplemented',
  'PermanentRedirect', 'MovedPermanently', 'IllegalLocationConstraintException', 'InvalidLocationConstraint',
]);
const NET_DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
const NET_CONNECT = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);
const NET_TIMEOUT = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'delivery_timeout']);

export const codeOf = (err: unknown): string => String((err as { code?: unknown })?.code ?? '');

export function classify(err: unknown): ProbeFailure {
  const code = codeOf(err);
  if ((err instanceof DomainError && err.code === 'destination_host_not_allowed') || code === 'ENOTALLOWED') return 'host_not_allowed';
  if (code === 'EBLOCKED') return 'blocked';
  if (S3_AUTH.has(code)) return 'auth';
  if (S3_BUCKET.has(code)) return 'bucket';
  if (S3_PERMISSION.has(code)) return 'permission';
  if (NET_DNS.has(code)) return 'dns';
  if (NET_TIMEOUT.has(code)) return 'timeout';
  if (NET_CONNECT.has(code)) return 'connect';
  const message = err instanceof Error ? err.message : '';
  if (/^(ERR_TLS|ERR_SSL|EPROTO|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL|HOSTNAME_MISMATCH|ERR_TLS_CERT)/.test(code) || /\b(SSL|TLS)\b/i.test(message)) return 'tls';
  return 'unknown';
}

/**
 * A refused write to a bucket that does not exist is AccessDenied on several servers (SeaweedFS,
 * and AWS for a bucket of another account): asking whether the bucket exists tells the two apart.
 */
export async function explain(err: unknown, bucket: { client: { bucketExists(b: string): Promise<boolean> }; bucket: string } | undefined, timeoutMs: number): Promise<ProbeFailure> {
  const kind = classify(err);
  if (kind !== 'permission' || !bucket) return kind;
  // Bounded like every request to the bucket: one that never answers must not hold the probe or the delivery.
  const exists = await withDeadline(bucket.client.bucketExists(bucket.bucket), timeoutMs).catch(() => true);
  return exists ? kind : 'bucket';
}

export const TASK_CODE: Record<ProbeFailure, TaskErrorCode> = {
  host_not_allowed: 'destination_host_not_allowed',
  blocked: 'destination_host_not_allowed',
  auth: 'destination_auth_failed',
  bucket: 'destination_bucket_missing',
  permission: 'destination_permission_denied',
  dns: 'destination_unreachable',
  connect: 'destination_unreachable',
  timeout: 'destination_unreachable',
  tls: 'destination_unreachable',
  host_key: 'destination_host_key_mismatch',
  directory: 'destination_bucket_missing',
  unknown: 'destination_unreachable',
};

const SENTENCE: Record<ProbeFailure, string> = {
  host_not_allowed: "the endpoint's host (or the bucket's, in virtual-hosted style) is not on the project's destination_hosts",
  blocked: 'the endpoint resolves to a link-local or cloud metadata address',
  dns: "the endpoint's host name does not resolve",
  connect: 'the endpoint refused or dropped the connection',
  timeout: 'the endpoint did not answer in time',
  tls: 'the TLS handshake with the endpoint failed',
  host_key: "the SFTP server's host key is not the pinned one",
  directory: "the SFTP server's directory does not exist",
  auth: 'the bucket refused the access key or secret',
  bucket: 'the bucket does not exist',
  permission: 'the access key may not do there what a delivery needs (write or delete objects, or list, start or abort multipart uploads)',
  unknown: 'the bucket answered with an error',
};

/** A sentence for the failure, with the server's own words where it gave some (never a secret: S3 errors hold none). */
export function describeFailure(kind: ProbeFailure, err: unknown): string {
  const detail = detailOf(err);
  return detail ? `${SENTENCE[kind]} (${detail})` : SENTENCE[kind];
}

export const detailOf = (err: unknown): string => (err instanceof Error ? (err.message.split('\n')[0]?.slice(0, 200) ?? '') : '');

/**
 * The failure as a delivery's error. What is named already passes as it is: a DomainError (a host no
 * longer allowed, our own store's storage_failed) and the activity's cancellation. The rest is the
 * bucket's answer: a refusal no retry mends stops the task (a destination_* code, or internal_error
 * for a request the bucket refuses, its S3 code in the message); anything else is retried.
 */
export async function deliveryError(err: unknown, destinationId: string, bucket: Parameters<typeof explain>[1], timeoutMs: number): Promise<unknown> {
  if (err instanceof DomainError || err instanceof CancelledFailure) return err;
  // Our side of the secret, not the customer's credentials. Sealed with a key this process lacks: a
  // rotation under way (another process, or this one restarted, has it), or a key dropped too early.
  if (err instanceof SealError && err.missingKey) {
    return DomainError.transient('internal_error', `destination ${destinationId}: its secret is sealed with key ${err.missingKey}, which this process's DESTINATION_KEYS does not hold (a rotation not yet on every process, or a key dropped while still in use)`);
  }
  // A sealed value that does not open with its own key (altered, or copied from another row): no retry mends it.
  if (err instanceof SealError) return new DomainError('destination_auth_failed', `destination ${destinationId}: its secret cannot be opened (${err.message}); create the destination again`);
  const kind = await explain(err, bucket, timeoutMs);
  if (kind === 'unknown' && S3_REFUSED.has(codeOf(err))) {
    const detail = detailOf(err);
    return new DomainError('internal_error', `destination ${destinationId}: the bucket refused the request with ${codeOf(err)}, which no retry changes${detail ? ` (${detail})` : ''}`);
  }
  const code = TASK_CODE[kind];
  return new DomainError(code, `destination ${destinationId}: ${describeFailure(kind, err)}`, { retryable: code === 'destination_unreachable' });
}
