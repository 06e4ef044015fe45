// Runs the real `npm start` (embedded defaults: PGlite, spawned Temporal dev server, local files)
// as a child process group, the way a newcomer's terminal does.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../platform/paths.js';
import { freePort } from './ports.js';

export interface Embedded {
  child: ChildProcess;
  base: string;
  port: number;
  dataDir: string;
  output(): string;
  adminToken(): string;
  /** Resolves when npm and everything holding its output have exited (npm itself may die of the signal). */
  exited: Promise<number | null>;
  signal(sig: NodeJS.Signals): void;
  /** A JSON call to the running service. */
  call(method: string, path: string, token: string, body?: unknown): Promise<{ status: number; json: any }>;
}

export async function startEmbedded(opts: { dataDir?: string; ports?: { port: number; temporal: number; ui: number }; env?: Record<string, string> } = {}): Promise<Embedded> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'dc-embedded-'));
  const ports = opts.ports ?? { port: await freePort(), temporal: await freePort(), ui: await freePort() };
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !['DATABASE_URL', 'TEMPORAL_ADDRESS', 'S3_ENDPOINT', 'ADMIN_TOKEN', 'LINK_SECRET'].includes(k)) env[k] = v;
  }
  Object.assign(env, { DATA_DIR: dataDir, PORT: String(ports.port), TEMPORAL_PORT: String(ports.temporal), TEMPORAL_UI_PORT: String(ports.ui), LOG_LEVEL: 'warn', ...opts.env });
  const child = spawn('npm', ['start', '--silent'], { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const deadline = Date.now() + 90_000;
  while (!out.includes('[download-center] ready')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not become ready:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    base: `http://127.0.0.1:${ports.port}`,
    port: ports.port,
    dataDir,
    exited,
    output: () => out,
    adminToken: () => (JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as { adminToken: string }).adminToken,
    call: async (method, path, token, body) => {
      const res = await fetch(`http://127.0.0.1:${ports.port}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as any };
    },
    signal: (sig) => {
      try {
        process.kill(-child.pid!, sig);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
    },
  };
}

/** After a test: a start still running is stopped as Ctrl-C stops it, its source closed, its DATA_DIR removed. */
export async function cleanUpEmbedded(svc: Embedded | undefined, src?: { close(): Promise<unknown> }): Promise<void> {
  if (svc && svc.child.exitCode === null && svc.child.signalCode === null) {
    svc.signal('SIGINT');
    await svc.exited;
  }
  await src?.close();
  if (svc) rmSync(svc.dataDir, { recursive: true, force: true });
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of the worker processes (app/worker.js, or app/worker.ts through tsx) whose DATA_DIR is `dataDir`. */
export function workerPids(dataDir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const environ = readFileSync(`/proc/${name}/environ`, 'utf8');
      if (/app\/worker\.[jt]s/.test(cmd) && environ.split('\0').includes(`DATA_DIR=${dataDir}`)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
