// Outgoing calls go only to hosts on a project's allow-list, and never to cloud metadata or
// link-local addresses, whatever a DNS answer says (checked again at connect time).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
blocked.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, incl. 169.254.169.254 metadata
blocked.addSubnet('0.0.0.0', 8, 'ipv4');
blocked.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
blocked.addSubnet('fe80::', 10, 'ipv6'); // link-local
blocked.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
blocked.addAddress('::', 'ipv6');

const blockedNames = new Set(['metadata.google.internal', 'metadata', 'instance-data']);

export function isBlockedAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  const mapped = ip.toLowerCase().startsWith('::ffff:') ? ip.slice(7) : null;
  if (mapped && isIP(mapped) === 4) return blocked.check(mapped, 'ipv4');
  return blocked.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * `host[:port]` or `*.suffix[:port]`; a pattern without a port allows any port. Both cases spelled
 * out rather than a flag: the API document states this pattern, and JSON Schema patterns have none.
 */
export const hostPatternRegex = /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

function defaultPort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** A pattern split into its host (IPv6 without brackets, in the URL parser's canonical form) and port. */
function parsePattern(raw: string): { name: string; port: string | undefined } {
  const p = raw.toLowerCase();
  const v6 = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(p);
  if (v6) return { name: canonicalV6(v6[1] ?? ''), port: v6[2] };
  const m = /^(.*?)(?::(\d+))?$/.exec(p);
  return { name: m?.[1] ?? '', port: m?.[2] };
}

/** `[0:0::1]` and `[::1]` are one host: compare the forms the URL parser gives. */
function canonicalV6(addr: string): string {
  try {
    return new URL(`http://[${addr}]/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return addr;
  }
}

export function hostAllowed(url: URL, patterns: readonly string[]): boolean {
  return nameAllowed(url.hostname, defaultPort(url), patterns);
}

/** A host name (as a connection looks it up) on a port, against the patterns. */
export function nameAllowed(hostname: string, port: string, patterns: readonly string[]): boolean {
  const bare = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return patterns.some((raw) => {
    const { name, port: pport } = parsePattern(raw);
    if (pport && pport !== port) return false;
    if (name.startsWith('*.')) return bare.endsWith(name.slice(1)) && bare.length > name.length - 1;
    return bare === name;
  });
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: 'invalid' | 'not_allowed' | 'blocked' };

/** Submission-time check; connect-time is guardedLookup below. */
export function checkOutgoingUrl(raw: string, patterns: readonly string[]): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'invalid' };
  if (url.username || url.password) return { ok: false, reason: 'invalid' };
  const bare = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (blockedNames.has(bare) || isBlockedAddress(bare)) return { ok: false, reason: 'blocked' };
  if (!hostAllowed(url, patterns)) return { ok: false, reason: 'not_allowed' };
  return { ok: true, url };
}

export type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup for undici's connector that refuses blocked addresses (defeats DNS rebinding to metadata). */
export function guardedLookup(hostname: string, options: object, callback: LookupCallback): void {
  if (blockedNames.has(hostname.toLowerCase())) {
    callback(Object.assign(new Error(`refused to connect to ${hostname}`), { code: 'EBLOCKED' }), []);
    return;
  }
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isBlockedAddress(a.address));
    if (bad) {
      callback(Object.assign(new Error(`refused to connect to ${hostname} (${bad.address})`), { code: 'EBLOCKED' }), []);
      return;
    }
    const all = (options as { all?: boolean }).all;
    if (all) callback(null, list);
    else callback(null, list[0]?.address ?? '', list[0]?.family);
  });
}
