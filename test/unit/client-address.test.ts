// The client address of the record of downloads (platform/client-address.ts): X-Forwarded-For is
// read only from a trusted peer, right to left, stopping at the first hop that is not trusted.
import { describe, expect, it } from 'vitest';
import { parseProxyEntry, plainAddress, TrustedProxies } from '../../platform/client-address.js';
import { ConfigError, loadConfig } from '../../platform/config.js';

describe('TRUSTED_PROXIES', () => {
  it('takes addresses and CIDR blocks of both families, and refuses anything else at start', () => {
    expect(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.7 ,fd00::/8,::1' }).TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8', '::1']);
    expect(loadConfig({}).TRUSTED_PROXIES).toEqual([]);
    for (const bad of ['10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/8', 'fd00::/129', '10.0.0.0/x']) {
      expect(parseProxyEntry(bad), bad).toBeNull();
      expect(() => loadConfig({ TRUSTED_PROXIES: bad }), bad).toThrow(ConfigError);
    }
  });

  it('reads an IPv4 peer of a dual-stack socket as IPv4', () => {
    expect(plainAddress('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(plainAddress('2001:db8::1')).toBe('2001:db8::1');
  });
});

describe('the client address', () => {
  const proxies = new TrustedProxies(['10.0.0.0/8', 'fd00::/8']);

  it('is the peer when no proxy is trusted, or the peer is not one', () => {
    expect(new TrustedProxies([]).clientAddress('10.0.0.1', '203.0.113.9')).toBe('10.0.0.1');
    expect(proxies.clientAddress('198.51.100.4', '203.0.113.9')).toBe('198.51.100.4');
    expect(proxies.clientAddress('10.0.0.1', undefined)).toBe('10.0.0.1');
  });

  it('is the first untrusted hop from the right behind trusted proxies', () => {
    expect(proxies.clientAddress('::ffff:10.0.0.1', '203.0.113.9')).toBe('203.0.113.9');
    expect(proxies.clientAddress('10.0.0.1', '1.1.1.1, 203.0.113.9, 10.2.2.2')).toBe('203.0.113.9');
    expect(proxies.clientAddress('fd00::5', '2001:db8::7, fd00::9')).toBe('2001:db8::7');
    // Every hop a trusted proxy: the leftmost is the client.
    expect(proxies.clientAddress('10.0.0.1', '10.9.9.9, 10.2.2.2')).toBe('10.9.9.9');
  });

  it('stops at the last known address at a hop that is not an address', () => {
    expect(proxies.clientAddress('10.0.0.1', 'unknown')).toBe('10.0.0.1');
    expect(proxies.clientAddress('10.0.0.1', '203.0.113.9, 10.0.0.3, <script>')).toBe('10.0.0.1');
    expect(proxies.clientAddress('10.0.0.1', '203.0.113.9, nonsense, 10.0.0.3')).toBe('10.0.0.3');
  });
});
