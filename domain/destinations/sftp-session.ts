// One SSH connection to a customer's SFTP server, for one test or delivery attempt. The host gets
// every defence an S3 endpoint has: the project's destination_hosts and the literal-address check
// first, then our own guarded DNS lookup (metadata and link-local answers refused), and ssh2 is
// given the address that lookup allowed, never the name, so a second answer (DNS rebinding) is
// never asked for. The server's host key must be the pinned one, compared before any credential
// is sent: a wrong one ends the handshake, nothing is written; the server's other key types are
// then asked for, one connection each (sftp-host-keys.ts). Every request has a deadline.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Client, SFTPWrapper, Stats } from 'ssh2';
import { open as unseal } from '../../platform/sealed.js';
import { DomainError } from '../errors.js';
import { guardedLookup } from '../source/hosts.js';
import { withDeadline } from './deadline.js';
import { keyTypeOf, otherHostKeyOffers, serverOffersIn } from './sftp-host-keys.js';
import type { SftpRow } from './kinds.js';
import { sftpHostRefusal } from './refusal.js';

// Loaded on first use, like minio: a process that never delivers over SFTP never pays for it.
const loadSsh2 = () => createRequire(import.meta.url)('ssh2') as typeof import('ssh2');

/** The steps of reaching a server and writing there, in order: the test reports each. */
export const SFTP_STEPS = ['dns', 'connect', 'host_key', 'auth', 'permission', 'write'] as const;
export type SftpStep = (typeof SFTP_STEPS)[number];

/** What is sealed for an SFTP destination: one of password and private_key. */
export interface SftpSecret {
  password?: string;
  private_key?: string;
  passphrase?: string;
}

/** Where the connection got to (the step a failure belongs to) and the host key it saw. */
export interface Progress {
  step: SftpStep;
  seen?: string;
}

/** Why a private key cannot be used (it does not parse, needs another passphrase, or is a public key), or null. */
export function privateKeyProblem(key: string, passphrase: string | undefined): { field: string; message: string } | null {
  const parsed = loadSsh2().utils.parseKey(key, passphrase);
  if (parsed instanceof Error) {
    // The parser's own words name a passphrase when that is what is wrong; they never quote the key.
    const field = /passphrase|decrypt|bad decrypt/i.test(parsed.message) ? 'passphrase' : 'private_key';
    return { field, message: `cannot be read as a private key: ${parsed.message}` };
  }
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!first?.isPrivateKey()) return { field: 'private_key', message: 'is a public key: give the private key (PEM or OpenSSH format)' };
  return null;
}

/** The host key's fingerprint as OpenSSH prints it (`ssh-keygen -lf`): SHA-256 of the key blob, base64 unpadded. */
export const fingerprintOf = (key: Buffer): string => `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

/** An error classify() reads by its code (domain/destinations/sftp-failures.ts). */
export const codedError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

// SFTP's status codes (draft-ietf-secsh-filexfer-02 §7) as the codes classify() reads.
const STATUS: Record<number, string> = { 2: 'SFTP_NO_SUCH_FILE', 3: 'SFTP_PERMISSION_DENIED', 4: 'SFTP_FAILURE' };

type Callback<T> = (err: (Error & { code?: number | string }) | undefined | null, value?: T) => void;

export class SftpSession {
  constructor(
    private readonly client: Client,
    private readonly sftp: SFTPWrapper,
    private readonly timeoutMs: number,
  ) {}

  /** One request, bounded, its SFTP status turned into a code that names it. */
  private call<T>(what: string, path: string, fn: (cb: Callback<T>) => void): Promise<T> {
    const work = new Promise<T>((resolve, reject) => {
      fn((err, value) => {
        if (!err) return resolve(value as T);
        const code = typeof err.code === 'number' ? (STATUS[err.code] ?? `SFTP_${err.code}`) : err.code;
        reject(Object.assign(new Error(`${what} ${path}: ${err.message}`), { code }));
      });
    });
    return withDeadline(work, this.timeoutMs);
  }

  /** The entry's attributes, or null when nothing is there. */
  stat(path: string): Promise<Stats | null> {
    return this.call<Stats>('stat', path, (cb) => this.sftp.stat(path, cb)).catch((err: { code?: string }) => {
      if (err.code === 'SFTP_NO_SUCH_FILE') return null;
      throw err;
    });
  }

  open(path: string, flags: 'w' | 'r+' | 'r'): Promise<Buffer> {
    return this.call<Buffer>('open', path, (cb) => this.sftp.open(path, flags, cb));
  }

  write(handle: Buffer, buf: Buffer, position: number): Promise<void> {
    return this.call<void>('write', `at ${position}`, (cb) => this.sftp.write(handle, buf, 0, buf.length, position, cb));
  }

  async read(handle: Buffer, length: number, position: number): Promise<Buffer> {
    const buf = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = await this.call<number>('read', `at ${position + got}`, (cb) => this.sftp.read(handle, buf, got, length - got, position + got, cb));
      if (!n) break;
      got += n;
    }
    return buf.subarray(0, got);
  }

  /** Flushed to the server's disk before the rename makes it visible, where the server can (OpenSSH's fsync extension). */
  async close(handle: Buffer, sync: boolean): Promise<void> {
    if (sync && this.sftp._extensions['fsync@openssh.com'] === '1') await this.call<void>('fsync', 'the file', (cb) => this.sftp.ext_openssh_fsync(handle, cb));
    await this.call<void>('close', 'the file', (cb) => this.sftp.close(handle, cb));
  }

  mkdir(path: string): Promise<void> {
    return this.call<void>('mkdir', path, (cb) => this.sftp.mkdir(path, cb));
  }

  unlink(path: string): Promise<void> {
    return this.call<void>('remove', path, (cb) => this.sftp.unlink(path, cb));
  }

  /**
   * `from` takes the name `to` in one step, replacing what is there (OpenSSH's posix-rename, so a
   * reader sees the old file or the new one, never neither). Plain SFTP's rename refuses an
   * existing target: the old one is removed first there.
   */
  async replace(from: string, to: string): Promise<void> {
    if (this.sftp._extensions['posix-rename@openssh.com'] === '1') return this.call<void>('rename', from, (cb) => this.sftp.ext_openssh_rename(from, to, cb));
    if (await this.stat(to)) await this.unlink(to);
    return this.call<void>('rename', from, (cb) => this.sftp.rename(from, to, cb));
  }

  end(): void {
    this.client.destroy();
  }
}

/** The destination's host through the guarded lookup: the address to connect to. */
function lookup(host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    guardedLookup(host, {}, (err, address) => (err ? reject(err) : resolve(address as string)));
  });
}

/** A session on the destination's server, or the error of the step it stopped at (`progress.step`). */
export async function openSession(row: SftpRow, hosts: readonly string[], keys: readonly string[], timeoutMs: number, progress: Progress = { step: 'dns' }): Promise<SftpSession> {
  const { host, port, username, host_key_sha256: pinned } = row.sftp;
  const refusal = sftpHostRefusal(host, port, hosts);
  if (refusal) throw new DomainError('destination_host_not_allowed', refusal);
  const secret = JSON.parse(unseal(row.secretSealed, keys, row.id)) as SftpSecret;
  progress.step = 'dns';
  const address = await withDeadline(lookup(host), timeoutMs);
  progress.step = 'connect';
  const h: Handshake = { address, port, username, secret, pinned, timeoutMs, seen: [] };
  try {
    return await connectOnce(h, progress);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'EHOSTKEY') throw err;
    return otherHostKeys(h, progress);
  }
}

/** The pin is not the key the server preferred: one connection per other key type the server has, the first whose key matches. */
async function otherHostKeys(h: Handshake, progress: Progress): Promise<SftpSession> {
  for (const algorithms of otherHostKeyOffers(h.seen.map((k) => k.type), h.serverOffers)) {
    const before = h.seen.length;
    try {
      return await connectOnce({ ...h, algorithms }, progress);
    } catch (err) {
      // Past the host key (it matched): the server's answer from there on is the session's.
      if (h.seen.length > before && h.seen.at(-1)!.fingerprint === h.pinned) throw err;
    }
  }
  progress.step = 'host_key';
  progress.seen = h.seen[0]?.fingerprint;
  const shown = h.seen.map((k) => `${k.fingerprint} (${k.type})`).join(', ');
  throw codedError('EHOSTKEY', `the server's host ${h.seen.length > 1 ? 'keys are' : 'key is'} ${shown}, not the pinned ${h.pinned}`);
}

async function connectOnce(h: Handshake, progress: Progress): Promise<SftpSession> {
  const client = new (loadSsh2().Client)();
  try {
    const sftp = await withDeadline(handshake(client, h, progress), h.timeoutMs * 2);
    return new SftpSession(client, sftp, h.timeoutMs);
  } catch (err) {
    client.destroy();
    throw err;
  }
}

interface Handshake {
  address: string;
  port: number;
  username: string;
  secret: SftpSecret;
  pinned: string;
  timeoutMs: number;
  /** The host key types to offer; ssh2's own list (Ed25519 first) when absent. */
  algorithms?: string[];
  /** Every host key the server showed, in order, across the connections of one session. */
  seen: { fingerprint: string; type: string }[];
  /** The host key algorithms the server offered in its first handshake, when ssh2 told. */
  serverOffers?: string[];
}

function handshake(client: Client, h: Handshake, progress: Progress): Promise<SFTPWrapper> {
  return new Promise((resolve, reject) => {
    let mismatch = false;
    client.on('error', (err: Error) => {
      reject(mismatch ? codedError('EHOSTKEY', `the server's host key is ${progress.seen}, not the pinned ${h.pinned}`) : err);
    });
    client.on('close', () => reject(codedError('ECONNRESET', 'the server closed the connection')));
    client.on('ready', () => {
      progress.step = 'permission';
      client.sftp((err, sftp) => (err ? reject(err) : resolve(sftp)));
    });
    client.connect({
      host: h.address,
      port: h.port,
      username: h.username,
      ...(h.secret.password !== undefined ? { password: h.secret.password } : {}),
      ...(h.secret.private_key !== undefined ? { privateKey: h.secret.private_key } : {}),
      ...(h.secret.passphrase !== undefined ? { passphrase: h.secret.passphrase } : {}),
      ...(h.algorithms ? { algorithms: { serverHostKey: h.algorithms } } : {}),
      // Only the handshake's line naming the server's host key algorithms is read; nothing is logged.
      debug: (line: string) => (h.serverOffers ??= serverOffersIn(line)),
      readyTimeout: h.timeoutMs,
      keepaliveInterval: 10_000,
      keepaliveCountMax: 3,
      tryKeyboard: false,
      // Before any credential is sent: a server without the pinned key learns nothing of them.
      hostVerifier: (key) => {
        progress.step = 'host_key';
        progress.seen = fingerprintOf(key);
        h.seen.push({ fingerprint: progress.seen, type: keyTypeOf(key) });
        mismatch = progress.seen !== h.pinned;
        if (!mismatch) progress.step = 'auth';
        return !mismatch;
      },
    });
  });
}
