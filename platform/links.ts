// Download links: the API's signed, expiring /v1/files/<task_id>/<name>?expires=<unix>&sig=<hmac>
// (local storage, and the fallback), and direct ones to the bucket: a presigned GET, or the same
// path and query on a CDN in front of the bucket (docs/adr/0015-direct-downloads.md).
import type { Config } from './config.js';
import { hmacHex, safeEqual } from './crypto.js';
import { contentDisposition, contentTypeOf } from './http.js';
import { PRESIGN_MAX_SECONDS, presignGet } from './storage/presign.js';

export interface SignedLink {
  url: string;
  expiresAt: Date;
}

// A link made for an operator session also signs the session's id (`by`), so its downloads are
// recorded as that operator's (docs/downloads.md); a link without one signs what it always did.
const payload = (taskId: string, name: string, expires: number, by?: string) => `${taskId}\n${name}\n${expires}${by === undefined ? '' : `\n${by}`}`;
/** What an operator session's id looks like (newId('ops')): anything else in `by` is a bad signature. */
const SESSION_ID = /^ops_[A-Za-z0-9_-]{1,80}$/;

export function signLink(opts: {
  baseUrl: string;
  secret: string;
  taskId: string;
  name: string;
  expiresAt: Date;
  /** The operator session the link is made for. */
  by?: string | undefined;
}): SignedLink {
  const expires = Math.floor(opts.expiresAt.getTime() / 1000);
  const sig = hmacHex(opts.secret, payload(opts.taskId, opts.name, expires, opts.by));
  const path = `/v1/files/${encodeURIComponent(opts.taskId)}/${encodeURIComponent(opts.name)}`;
  const by = opts.by === undefined ? '' : `&by=${encodeURIComponent(opts.by)}`;
  return { url: `${opts.baseUrl}${path}?expires=${expires}${by}&sig=${sig}`, expiresAt: new Date(expires * 1000) };
}

export type LinkCheck = 'ok' | 'tampered' | 'expired';

export function checkLink(opts: {
  secret: string;
  taskId: string;
  name: string;
  expires: string | undefined;
  sig: string | undefined;
  by?: string | undefined;
  now?: Date;
}): LinkCheck {
  if (!opts.expires || !opts.sig || !/^\d{1,12}$/.test(opts.expires)) return 'tampered';
  if (opts.by !== undefined && !SESSION_ID.test(opts.by)) return 'tampered';
  const expected = hmacHex(opts.secret, payload(opts.taskId, opts.name, Number(opts.expires), opts.by));
  if (!safeEqual(expected, opts.sig)) return 'tampered';
  const now = (opts.now ?? new Date()).getTime() / 1000;
  return Number(opts.expires) < now ? 'expired' : 'ok';
}

/** What a direct link needs: the bucket and its credentials, and where clients reach it. */
export type DirectLinks = NonNullable<Config['s3']> & NonNullable<Config['directDownloads']>;

export function directLinks(config: Pick<Config, 's3' | 'directDownloads'>): DirectLinks | null {
  return config.s3 && config.directDownloads ? { ...config.s3, ...config.directDownloads } : null;
}

/**
 * A presigned GET of the object at `key`, valid until `expiresAt` but at most 7 days (S3's limit),
 * telling the store to answer with the file's name and type. On a CDN (`cdnBase`), the URL keeps the
 * presigned path and query: the CDN forwards both to the bucket, which checks the signature and
 * expiry itself. null when less than a second is left (the API's link then answers 410).
 */
export function directLink(d: DirectLinks, file: { key: string; name: string }, expiresAt: Date, now = new Date()): SignedLink | null {
  const seconds = Math.min(PRESIGN_MAX_SECONDS, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
  if (seconds < 1) return null;
  const presigned = presignGet({
    endpoint: d.publicEndpoint,
    region: d.region,
    accessKey: d.accessKey,
    secretKey: d.secretKey,
    bucket: d.bucket,
    key: file.key,
    expiresSeconds: seconds,
    now,
    params: {
      'response-content-disposition': contentDisposition(file.name),
      'response-content-type': contentTypeOf(file.name),
      // Each link is unique (it carries its signing time), so a shared cache would gain nothing and
      // could keep a copy past the file's deletion; a browser may keep it while the link lives.
      'response-cache-control': `private, max-age=${seconds}`,
    },
  });
  const url = new URL(presigned);
  return {
    url: d.cdnBase ? `${d.cdnBase}${url.pathname}${url.search}` : presigned,
    // The signature's clock is whole seconds (X-Amz-Date), so the expiry is too.
    expiresAt: new Date(Math.floor(now.getTime() / 1000) * 1000 + seconds * 1000),
  };
}
