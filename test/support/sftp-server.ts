// A real OpenSSH sshd (Debian's openssh-server) of the customer's, for the SFTP destination tests:
// its own sshd_config, host keys (Ed25519, which ssh2 prefers, and RSA), authorized keys and pid
// file in a temporary folder, on a loopback port, with `Subsystem sftp internal-sftp` and nothing of
// the system's configuration. No root login: run as root (CI), the user is an unprivileged system
// user of this server alone, `dcsftp-<random>`, made with useradd, given a random password (chpasswd)
// so password logins are tested too, and removed (userdel) when the server stops; a run killed
// before that leaves a user whose password nobody knows. Run as anyone else, sshd can only log that
// user in, with keys (no password is known).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { userInfo } from 'node:os';
import { join, relative } from 'node:path';
import { SSHD } from '../../scripts/test-tools.mjs';
import { freePort } from './ports.js';

const SYSTEM_USER_PREFIX = 'dcsftp-';

export interface SftpServer {
  host: string;
  port: number;
  user: string;
  /** Set only when the server runs as root with its own user (who then has this password, random per start). */
  password: string | undefined;
  /** The host key's fingerprint as `ssh-keygen -lf` prints it: the Ed25519 key, the one ssh2 asks for first. */
  hostKeySha256: string;
  /** The server's other host key, an RSA one: a client that prefers Ed25519 sees it only when it asks for RSA. */
  rsaHostKeySha256: string;
  /** `ssh-keygen -lf`'s own line for the host key: the tests compare ours with it. */
  sshKeygenLine: string;
  /** An authorized Ed25519 key in OpenSSH format, and an authorized RSA key in PEM format. */
  privateKey: string;
  pemKey: string;
  /** A key sshd does not know. */
  strangerKey: string;
  /** A directory the user may write in; one it may not. */
  incoming: string;
  locked: string;
  /** Every file under a directory: its path relative to the directory → bytes. */
  files(dir: string): Map<string, Buffer>;
  stop(): Promise<void>;
}

const keygen = (args: string[]) => execFileSync('ssh-keygen', ['-q', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });

function newKey(dir: string, name: string, extra: string[] = ['-t', 'ed25519']): string {
  keygen([...extra, '-N', '', '-C', name, '-f', join(dir, name)]);
  return join(dir, name);
}

interface LoginUser {
  name: string;
  uid: number;
  gid: number;
  password: string | undefined;
  /** Removes the user this server made (nothing for the user running the tests). */
  remove(): Promise<void>;
}

/** A user of this server alone when running as root (random name and password), else whoever runs the tests. */
async function loginUser(): Promise<LoginUser> {
  const me = userInfo();
  if (me.uid !== 0) return { name: me.username, uid: me.uid, gid: me.gid, password: undefined, remove: async () => {} };
  const name = `${SYSTEM_USER_PREFIX}${randomBytes(5).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  // Test files starting servers at once take turns on /etc/passwd's lock: useradd then says so, and is asked again.
  await retried(() => execFileSync('useradd', ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', name], { stdio: 'pipe' }));
  await retried(() => execFileSync('chpasswd', { input: `${name}:${password}\n`, stdio: ['pipe', 'pipe', 'pipe'] }));
  const uid = Number(execFileSync('id', ['-u', name]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', name]).toString().trim());
  // --force: a session process sshd has not reaped yet must not keep the user (and its password)
  // alive; should userdel still fail, the account is locked and expired instead.
  const remove = () =>
    retried(() => execFileSync('userdel', ['--force', name], { stdio: 'pipe' }), 5).catch(() => {
      execFileSync('usermod', ['--lock', '--expiredate', '1', name], { stdio: 'pipe' });
    });
  return { name, uid, gid, password, remove };
}

async function retried(step: () => unknown, attempts = 20): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      step();
      return;
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

/** `ssh-keygen -lf`'s line for a public key file, and its fingerprint (the second field): OpenSSH's own, not ours. */
const keygenLine = (pub: string) => execFileSync('ssh-keygen', ['-lf', pub]).toString().trim();
const fingerprintOfPub = (pub: string) => keygenLine(pub).split(' ')[1]!;

export async function startSftpServer(): Promise<SftpServer> {
  if (!existsSync(SSHD)) throw new Error(`${SSHD} is missing: node scripts/test-tools.mjs installs Debian's openssh-server (as root)`);
  const dir = mkdtempSync('/tmp/dc-sftp-');
  // The user reads authorized_keys as itself, and the tests' directories are below this one.
  chmodSync(dir, 0o755);
  const user = await loginUser();
  const hostKey = newKey(dir, 'host_ed25519');
  const rsaHostKey = newKey(dir, 'host_rsa', ['-t', 'rsa', '-b', '2048']);
  const privateKey = newKey(dir, 'user_ed25519');
  const pemKey = newKey(dir, 'user_rsa', ['-t', 'rsa', '-b', '2048', '-m', 'PEM']);
  const strangerKey = newKey(dir, 'stranger_ed25519');
  writeFileSync(join(dir, 'authorized_keys'), `${readFileSync(`${privateKey}.pub`, 'utf8')}${readFileSync(`${pemKey}.pub`, 'utf8')}`, { mode: 0o644 });
  const incoming = join(dir, 'incoming');
  const locked = join(dir, 'locked');
  mkdirSync(incoming);
  mkdirSync(locked, { mode: 0o555 });
  chmodSync(locked, 0o555);
  if (user.uid !== userInfo().uid) {
    chownSync(incoming, user.uid, user.gid);
    // For root as for any user: `locked` stays root's, 0555.
  }
  if (userInfo().uid === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `HostKey ${rsaHostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'UsePAM no',
      'StrictModes no',
      'PermitRootLogin no',
      `AllowUsers ${user.name}`,
      'PubkeyAuthentication yes',
      `PasswordAuthentication ${user.password ? 'yes' : 'no'}`,
      'KbdInteractiveAuthentication no',
      'PermitEmptyPasswords no',
      'Subsystem sftp internal-sftp',
      'MaxStartups 50',
      'LogLevel INFO',
      '',
    ].join('\n'),
  );
  const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
  const stop = async () => {
    await stopGroup(child);
    await user.remove();
    rmSync(dir, { recursive: true, force: true });
  };
  await listening(child, port, () => log).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  const fp = fingerprintOfPub(`${hostKey}.pub`);
  return {
    host: '127.0.0.1',
    port,
    user: user.name,
    password: user.password,
    hostKeySha256: fp,
    rsaHostKeySha256: fingerprintOfPub(`${rsaHostKey}.pub`),
    sshKeygenLine: keygenLine(`${hostKey}.pub`),
    privateKey: readFileSync(privateKey, 'utf8'),
    pemKey: readFileSync(pemKey, 'utf8'),
    strangerKey: readFileSync(strangerKey, 'utf8'),
    incoming,
    locked,
    files: (root) => filesUnder(root),
    stop,
  };
}

async function listening(child: ChildProcess, port: number, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited (${child.exitCode}): ${log()}`);
    if (await accepts(port)) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on ${port}: ${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

/** sshd and the per-connection processes it started (its process group). */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

function filesUnder(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(root, p), readFileSync(p));
    }
  };
  walk(root);
  return out;
}
