// The pure pieces of SFTP destinations: the fingerprint's form, which private keys are refused at
// creation, the temporary name's rules, how an SFTP or SSH failure is named and whether it is
// retried, and that a private key never reaches a log line. The server's side is
// test/e2e/sftp-destinations.test.ts's, against a real sshd.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { classifySftp, sftpDeliveryError } from '../../domain/destinations/sftp-failures.js';
import { keyTypeOf, otherHostKeyOffers, serverOffersIn } from '../../domain/destinations/sftp-host-keys.js';
import { codedError, fingerprintOf, privateKeyProblem } from '../../domain/destinations/sftp-session.js';
import { tempPathOf } from '../../domain/destinations/sftp-upload.js';
import { DomainError } from '../../domain/errors.js';
import { scrub } from '../../platform/logger.js';

const ssh2 = createRequire(import.meta.url)('ssh2') as { utils: { generateKeyPairSync(type: string, opts?: object): { private: string; public: string } } };

describe('the host key fingerprint', () => {
  it("is OpenSSH's form: SHA256: and the unpadded base64 of the key blob's SHA-256", () => {
    const blob = Buffer.from('a host key blob');
    const fp = fingerprintOf(blob);
    expect(fp).toBe(`SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`);
    expect(fp).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });
});

describe('the host key types asked for after a mismatch', () => {
  const blob = (type: string) => {
    const name = Buffer.from(type);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(name.length);
    return Buffer.concat([length, name, Buffer.from('key bytes')]);
  };

  it("reads the key type from the blob, and the server's offer from ssh2's handshake line", () => {
    expect(keyTypeOf(blob('ssh-ed25519'))).toBe('ssh-ed25519');
    expect(keyTypeOf(blob('ssh-rsa'))).toBe('ssh-rsa');
    expect(keyTypeOf(Buffer.alloc(2))).toBe('');
    expect(serverOffersIn('Handshake: (remote) Host key format: rsa-sha2-512,rsa-sha2-256,ssh-ed25519')).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-ed25519']);
    expect(serverOffersIn('Handshake: (remote) KEX method: curve25519-sha256')).toBeUndefined();
  });

  it('asks once per other type: those the server offered when known, else every type ssh2 speaks', () => {
    expect(otherHostKeyOffers(['ssh-ed25519'], ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-ed25519'])).toEqual([['rsa-sha2-512', 'rsa-sha2-256']]);
    expect(otherHostKeyOffers(['ssh-ed25519'], ['ssh-ed25519'])).toEqual([]);
    expect(otherHostKeyOffers(['ssh-ed25519'], undefined)).toEqual([['ecdsa-sha2-nistp256'], ['ecdsa-sha2-nistp384'], ['ecdsa-sha2-nistp521'], ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']]);
    expect(otherHostKeyOffers(['ssh-ed25519', 'ssh-rsa'], ['ecdsa-sha2-nistp256', 'ssh-rsa', 'ssh-ed25519'])).toEqual([['ecdsa-sha2-nistp256']]);
  });
});

describe('private keys at creation', () => {
  const plain = ssh2.utils.generateKeyPairSync('ed25519');
  const locked = ssh2.utils.generateKeyPairSync('ed25519', { passphrase: 'open sesame', cipher: 'aes256-ctr', rounds: 4 });

  it('takes an OpenSSH key, and an encrypted one with its passphrase', () => {
    expect(privateKeyProblem(plain.private, undefined)).toBeNull();
    expect(privateKeyProblem(locked.private, 'open sesame')).toBeNull();
  });

  it('refuses a public key, text that is no key, and an encrypted key without or with the wrong passphrase, on the right field', () => {
    expect(privateKeyProblem(plain.public, undefined)).toMatchObject({ field: 'private_key', message: expect.stringContaining('public key') });
    expect(privateKeyProblem('-----BEGIN OPENSSH PRIVATE KEY-----\nnope\n-----END OPENSSH PRIVATE KEY-----', undefined)).toMatchObject({ field: 'private_key' });
    expect(privateKeyProblem(locked.private, undefined)).toMatchObject({ field: 'passphrase' });
    expect(privateKeyProblem(locked.private, 'not it')).not.toBeNull();
    // The parser's message never quotes the key.
    expect(privateKeyProblem(locked.private, undefined)!.message).not.toContain(locked.private.split('\n')[1]!);
  });
});

describe('the temporary name', () => {
  it("is the same on every attempt of a task, another task's or another file's differs, and sits beside the final name", () => {
    const a = tempPathOf('/in/t/f.csv', 'tsk_1', 'aa');
    expect(a).toBe(tempPathOf('/in/t/f.csv', 'tsk_1', 'aa'));
    expect(a).toMatch(/^\/in\/t\/f\.csv\.part-[0-9a-f]{16}$/);
    expect(tempPathOf('/in/t/f.csv', 'tsk_2', 'aa')).not.toBe(a);
    expect(tempPathOf('/in/t/f.csv', 'tsk_1', 'bb')).not.toBe(a);
  });
});

describe('an SFTP failure, named', () => {
  const ssh = (level: string, message = 'x') => Object.assign(new Error(message), { level });

  it('reads the host key, SSH and SFTP errors into the test codes', () => {
    expect(classifySftp(codedError('EHOSTKEY', 'k'))).toBe('host_key');
    expect(classifySftp(ssh('client-authentication', 'All configured authentication methods failed'))).toBe('auth');
    expect(classifySftp(new Error('Cannot parse privateKey: Unsupported key format'))).toBe('auth');
    expect(classifySftp(ssh('client-timeout', 'Timed out while waiting for handshake'))).toBe('timeout');
    expect(classifySftp(codedError('SFTP_PERMISSION_DENIED', 'open: Permission denied'))).toBe('permission');
    expect(classifySftp(codedError('SFTP_NO_DIRECTORY', '/x does not exist'))).toBe('directory');
    // Any other no-such-file (a temporary file a partner removed) is no missing directory.
    expect(classifySftp(codedError('SFTP_NO_SUCH_FILE', 'open /x/f.part-1: No such file'))).toBe('unknown');
    expect(classifySftp(codedError('ECONNREFUSED', 'refused'))).toBe('connect');
    expect(classifySftp(codedError('ENOTFOUND', 'no such host'))).toBe('dns');
    expect(classifySftp(codedError('EBLOCKED', 'metadata'))).toBe('blocked');
    expect(classifySftp(codedError('SFTP_FAILURE', 'Failure'))).toBe('unknown');
  });

  it('fails the task at once for a host key, credentials, a missing directory or no right; retries the rest', () => {
    const as = (err: unknown) => sftpDeliveryError(err, 'dst_1') as DomainError;
    expect(as(codedError('EHOSTKEY', 'k'))).toMatchObject({ code: 'destination_host_key_mismatch', retryable: false });
    expect(as(ssh('client-authentication'))).toMatchObject({ code: 'destination_auth_failed', retryable: false });
    expect(as(codedError('SFTP_NO_DIRECTORY', 'gone'))).toMatchObject({ code: 'destination_bucket_missing', retryable: false });
    expect(as(codedError('SFTP_PERMISSION_DENIED', 'no'))).toMatchObject({ code: 'destination_permission_denied', retryable: false });
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'delivery_timeout', 'SFTP_FAILURE', 'SFTP_NO_SUCH_FILE']) {
      expect(as(codedError(code, 'x')), code).toMatchObject({ code: 'destination_unreachable', retryable: true });
    }
    const ours = new DomainError('storage_failed', 'ours');
    expect(sftpDeliveryError(ours, 'dst_1')).toBe(ours);
  });
});

describe('the log', () => {
  it('never holds a private key, in any armour, raw or JSON-escaped', () => {
    const key = ssh2.utils.generateKeyPairSync('ed25519').private;
    for (const line of [`{"msg":"x","body":${JSON.stringify(key)}}`, `raw ${key} end`]) {
      const out = scrub(line);
      expect(out).not.toContain(key.split('\n')[1]!);
      expect(out).toContain('[Redacted private key]');
    }
  });
});
