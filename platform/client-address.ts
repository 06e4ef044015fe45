// The address a request came from (docs/downloads.md#the-client-address): the socket's peer, or,
// when that peer is one of TRUSTED_PROXIES, what X-Forwarded-For says the proxies were asked by.
// Anybody can send X-Forwarded-For, so it is read only when a configured proxy handed the request
// over, and only as far back as the chain stays within trusted proxies: the first address from the
// right that is not one of them is the client (a proxy appends the peer it saw; what is left of that
// came from the client and may be invented).
import { BlockList, isIP } from 'node:net';

/** One TRUSTED_PROXIES entry: an address or a CIDR block, IPv4 or IPv6. */
export function parseProxyEntry(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', bits, extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return null;
  const max = version === 4 ? 32 : 128;
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return null;
  const prefix = bits === undefined ? max : Number(bits);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** `::ffff:10.0.0.1` (an IPv4 peer on a dual-stack socket) as `10.0.0.1`; anything else as it is. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

export class TrustedProxies {
  private readonly list = new BlockList();
  readonly size: number;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const parsed = parseProxyEntry(entry);
      if (!parsed) throw new Error(`not an address or CIDR block: ${entry}`);
      this.list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    this.size = entries.length;
  }

  trusts(address: string): boolean {
    const plain = plainAddress(address);
    const version = isIP(plain);
    return version !== 0 && this.list.check(plain, version === 4 ? 'ipv4' : 'ipv6');
  }

  /** The client's address, from the socket's peer and the X-Forwarded-For header (if any). */
  clientAddress(peer: string, forwardedFor: string | undefined): string {
    let client = plainAddress(peer);
    if (this.size === 0 || forwardedFor === undefined || !this.trusts(client)) return client;
    // At most 32 hops are read: a longer header is someone's invention past that point anyway.
    const hops = forwardedFor.split(',').map((h) => plainAddress(h.trim())).slice(-32);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      // A hop that is not an address ends the chain at the last one known: the proxy that sent it.
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!this.trusts(hop)) return hop;
    }
    return client;
  }
}
