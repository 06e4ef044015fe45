// Presigned GET URLs (AWS Signature Version 4, query-string auth) for direct downloads from the
// bucket. Computed here rather than with minio's presignedGetObject because that is async and the
// task JSON is built synchronously in many places (API, WebSocket frames, callbacks); the result is
// checked against minio's own in test/unit/presign.test.ts and against a real S3 server in the e2e tests.
import { createHash, createHmac } from 'node:crypto';

/** The longest lifetime S3 accepts for a presigned URL (7 days). */
export const PRESIGN_MAX_SECONDS = 7 * 24 * 3600;

export interface PresignGet {
  /** The S3 endpoint the URL names, `scheme://host[:port]` (path-style: /<bucket>/<key>). */
  endpoint: string;
  region: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  key: string;
  /** 1 … PRESIGN_MAX_SECONDS. */
  expiresSeconds: number;
  now: Date;
  /** Response overrides the server applies, e.g. `response-content-disposition`. */
  params?: Record<string, string>;
}

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ is percent-encoded. */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

export function presignGet(p: PresignGet): string {
  if (!Number.isInteger(p.expiresSeconds) || p.expiresSeconds < 1 || p.expiresSeconds > PRESIGN_MAX_SECONDS) {
    throw new RangeError(`a presigned URL lives 1 to ${PRESIGN_MAX_SECONDS} seconds, not ${p.expiresSeconds}`);
  }
  const origin = new URL(p.endpoint);
  const amzDate = p.now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${p.region}/s3/aws4_request`;
  const path = `/${uriEncode(p.bucket)}/${p.key.split('/').map(uriEncode).join('/')}`;
  const query: Record<string, string> = {
    ...p.params,
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${p.accessKey}/${scope}`,
    'X-Amz-Date': amzDate,
    'X-Amz-Expires': String(p.expiresSeconds),
    'X-Amz-SignedHeaders': 'host',
  };
  const canonicalQuery = Object.keys(query)
    .sort()
    .map((k) => `${uriEncode(k)}=${uriEncode(query[k]!)}`)
    .join('&');
  // URL.host leaves out a default port, as the Host header a client sends does.
  const canonicalRequest = ['GET', path, canonicalQuery, `host:${origin.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${p.secretKey}`, day), p.region), 's3'), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(toSign).digest('hex');
  return `${origin.protocol}//${origin.host}${path}?${canonicalQuery}&X-Amz-Signature=${signature}`;
}
