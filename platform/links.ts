// Signed, expiring download links: /v1/files/<task_id>/<name>?expires=<unix>&sig=<hmac>.
import { hmacHex, safeEqual } from './crypto.js';

export interface SignedLink {
  url: string;
  expiresAt: Date;
}

const payload = (taskId: string, name: string, expires: number) => `${taskId}\n${name}\n${expires}`;

export function signLink(opts: {
  baseUrl: string;
  secret: string;
  taskId: string;
  name: string;
  expiresAt: Date;
}): SignedLink {
  const expires = Math.floor(opts.expiresAt.getTime() / 1000);
  const sig = hmacHex(opts.secret, payload(opts.taskId, opts.name, expires));
  const path = `/v1/files/${encodeURIComponent(opts.taskId)}/${encodeURIComponent(opts.name)}`;
  return { url: `${opts.baseUrl}${path}?expires=${expires}&sig=${sig}`, expiresAt: new Date(expires * 1000) };
}

export type LinkCheck = 'ok' | 'tampered' | 'expired';

export function checkLink(opts: {
  secret: string;
  taskId: string;
  name: string;
  expires: string | undefined;
  sig: string | undefined;
  now?: Date;
}): LinkCheck {
  if (!opts.expires || !opts.sig || !/^\d{1,12}$/.test(opts.expires)) return 'tampered';
  const expected = hmacHex(opts.secret, payload(opts.taskId, opts.name, Number(opts.expires)));
  if (!safeEqual(expected, opts.sig)) return 'tampered';
  const now = (opts.now ?? new Date()).getTime() / 1000;
  return Number(opts.expires) < now ? 'expired' : 'ok';
}
