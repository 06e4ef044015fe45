// The client's address for the record of downloads: the socket's peer, or X-Forwarded-For when a
// TRUSTED_PROXIES proxy handed the request over (platform/client-address.ts).
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { Config } from '../platform/config.js';
import { TrustedProxies } from '../platform/client-address.js';

const built = new WeakMap<Config, TrustedProxies>();

function proxiesOf(config: Config): TrustedProxies {
  let proxies = built.get(config);
  if (!proxies) built.set(config, (proxies = new TrustedProxies(config.TRUSTED_PROXIES)));
  return proxies;
}

/** The peer's address; empty when the request did not come over a socket (an in-process request). */
function peerOf(c: Context): string {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress ?? '';
}

export function clientAddress(c: Context, config: Config): string {
  return proxiesOf(config).clientAddress(peerOf(c), c.req.header('x-forwarded-for'));
}
