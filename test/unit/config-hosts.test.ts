import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { checkOutgoingUrl, hostAllowed, isBlockedAddress } from '../../domain/source/hosts.js';

describe('config', () => {
  it('applies the contract defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ PORT: 8080, DATA_DIR: './data', TEMPORAL_PORT: 7233, TEMPORAL_NAMESPACE: 'default', TEMPORAL_UI_PORT: 8233, publicBaseUrl: 'http://localhost:8080', s3: null });
  });

  it('stops on a bad value with a message naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL: must be a postgres:\/\/ URL/);
    expect(() => loadConfig({ TEMPORAL_ADDRESS: 'nohost' })).toThrow(/TEMPORAL_ADDRESS/);
    expect(() => loadConfig({ S3_ENDPOINT: 'http://s3:9000' })).toThrow(/S3_ACCESS_KEY/);
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow(/ADMIN_TOKEN/);
  });
});

describe('outgoing host checks', () => {
  it('matches exact hosts, ports and wildcards', () => {
    const list = ['erp.internal:8443', '*.merchant.example', '127.0.0.1'];
    expect(hostAllowed(new URL('https://erp.internal:8443/x'), list)).toBe(true);
    expect(hostAllowed(new URL('https://erp.internal/x'), list)).toBe(false);
    expect(hostAllowed(new URL('http://a.b.merchant.example/x'), list)).toBe(true);
    expect(hostAllowed(new URL('http://merchant.example/x'), list)).toBe(false);
    expect(hostAllowed(new URL('http://evilmerchant.example/x'), list)).toBe(false);
    expect(hostAllowed(new URL('http://127.0.0.1:9999/x'), list)).toBe(true);
  });

  it('matches IPv6 literals with and without a port, in any spelling', () => {
    expect(hostAllowed(new URL('http://[::1]:8080/x'), ['[::1]'])).toBe(true);
    expect(hostAllowed(new URL('http://[::1]/x'), ['[::1]'])).toBe(true);
    expect(hostAllowed(new URL('http://[::1]:8080/x'), ['[::1]:8080'])).toBe(true);
    expect(hostAllowed(new URL('http://[::1]:9090/x'), ['[::1]:8080'])).toBe(false);
    expect(hostAllowed(new URL('http://[0:0::1]/x'), ['[0:0:0:0:0:0:0:1]'])).toBe(true);
    expect(hostAllowed(new URL('http://[2001:db8::2]/x'), ['[2001:db8::1]'])).toBe(false);
    expect(hostAllowed(new URL('http://[::1]/x'), ['127.0.0.1'])).toBe(false);
  });

  it('refuses metadata and link-local addresses whatever the list says', () => {
    expect(isBlockedAddress('169.254.169.254')).toBe(true);
    expect(isBlockedAddress('::ffff:169.254.169.254')).toBe(true);
    expect(isBlockedAddress('fe80::1')).toBe(true);
    expect(isBlockedAddress('10.0.0.1')).toBe(false);
    expect(checkOutgoingUrl('http://169.254.169.254/', ['169.254.169.254'])).toEqual({ ok: false, reason: 'blocked' });
    expect(checkOutgoingUrl('http://metadata.google.internal/', ['*.internal', 'metadata.google.internal'])).toEqual({ ok: false, reason: 'blocked' });
    expect(checkOutgoingUrl('ftp://127.0.0.1/', ['127.0.0.1'])).toEqual({ ok: false, reason: 'invalid' });
    expect(checkOutgoingUrl('http://user:pw@127.0.0.1/', ['127.0.0.1'])).toEqual({ ok: false, reason: 'invalid' });
  });
});
