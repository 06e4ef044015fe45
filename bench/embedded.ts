// The service as a newcomer runs it (`npm start`: the API and PGlite in one process, the worker in a
// child process of it, a spawned Temporal dev server), started in a temporary DATA_DIR for a benchmark, plus the source generator
// (bench/source.ts) in its own process. Issue 13 measures everything against this start.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { projectRoot } from '../platform/paths.js';
import { freePort, type NodeChild, processTree, rssMb, spawnNode, treeRssMb, workflowClosed } from './measure.js';

export const BENCH_ADMIN = 'bench-admin-token-0123456789';

export interface Embedded {
  base: string;
  /** The `npm start` process (API + PGlite; its worker process is a child of it). */
  pid: number;
  /** The `npm start` group without the Temporal dev server: the API process and its worker process. */
  pids: () => number[];
  /** The spawned Temporal dev server (apart from the memory targets). */
  temporalPid: number;
  temporalAddress: string;
  taskQueue: string;
  dataDir: string;
  call: <T = Record<string, any>>(method: string, path: string, token: string, body?: unknown) => Promise<{ status: number; body: T }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON, checked by use
  /** The group's resident memory (pids()); hwm: the API process's own high-water mark. */
  rss: () => { rss: number; hwm: number };
  /** Waits for the export workflow of a task to close (long poll on the dev server). */
  workflowResult: (taskId: string) => Promise<void>;
  /** What the process printed (stdout and stderr). */
  output: () => string;
  stop: () => Promise<void>;
}

export interface Source {
  url: string;
  host: string;
  pid: number;
  stop: () => void;
}

/** The generator source; `delayMs` makes each page answer that much later (a slow database). */
export async function startSource(opts: { delayMs?: number } = {}): Promise<Source> {
  const port = await freePort();
  const child = spawnNode(['bench/source.ts', String(port)], opts.delayMs ? { BENCH_SOURCE_DELAY_MS: String(opts.delayMs) } : {});
  await child.ready('listening');
  return { url: `http://127.0.0.1:${port}/export`, host: `127.0.0.1:${port}`, pid: child.child.pid!, stop: () => child.child.kill('SIGTERM') };
}

/**
 * `npm start` in a fresh DATA_DIR; `extraEnv` for settings a benchmark compares. BENCH_NODE_ARGS
 * adds flags to the measured process in any benchmark (e.g. `--cpu-prof --cpu-prof-dir=.bench`).
 */
export async function startEmbedded(extraEnv: Record<string, string> = {}, nodeArgs: string[] = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)): Promise<Embedded> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-bench-embedded-'));
  const port = await freePort();
  const env = {
    DATA_DIR: dataDir,
    PORT: String(port),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    ADMIN_TOKEN: BENCH_ADMIN,
    LINK_SECRET: 'bench-link-secret-0123456789',
    LOG_LEVEL: 'warn',
    DEMO_SOURCE: 'off',
    // As `npm start` sets them (package.json): glibc's malloc arenas capped, ~30 MB less resident;
    // blocks of 32 KiB and more mapped on their own, so V8's compiler zones (PGlite's WebAssembly
    // tiering up) go back to the system when freed: ~84 MB less idle (docs/adr/0055-idle-memory-of-npm-start.md).
    MALLOC_ARENA_MAX: '2',
    MALLOC_MMAP_THRESHOLD_: '32768',
    ...extraEnv,
  };
  // No DATABASE_URL and no TEMPORAL_ADDRESS: the embedded defaults (undefined drops the parent's).
  // What `npm start` runs: the compiled tree, built when the sources changed.
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-changed', '--quiet'], { cwd: projectRoot, stdio: 'inherit' });
  // The flags of `npm start` (package.json; docs/performance.md says why).
  const child: NodeChild = spawnNode(['dist/app/start.js'], { ...env, DATABASE_URL: undefined, TEMPORAL_ADDRESS: undefined }, ['--max-semi-space-size=2', ...nodeArgs]);
  await child.ready('[download-center] ready');
  const base = `http://127.0.0.1:${port}`;
  const call: Embedded['call'] = async (method, path, token, body) => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as never };
  };
  const pid = child.child.pid!;
  const temporalPid = Number(readFileSync(join(dataDir, 'temporal.pid'), 'utf8'));
  const pids = () => processTree(pid, temporalPid);
  const temporalAddress = `127.0.0.1:${env.TEMPORAL_PORT}`;
  let client: Client | undefined;
  const workflowResult = async (taskId: string) => {
    client ??= new Client({ connection: await Connection.connect({ address: temporalAddress }) });
    await workflowClosed(client, taskId);
  };
  return {
    base,
    pid,
    pids,
    temporalPid,
    temporalAddress,
    workflowResult,
    taskQueue: 'download-center',
    dataDir,
    call,
    rss: () => ({ rss: treeRssMb(pids()), hwm: rssMb(pid).hwm }),
    output: () => child.out(),
    stop: async () => {
      await client?.connection.close();
      child.child.kill('SIGTERM');
      await child.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
