// The API under export load (`npm run bench -- load [embedded|split]`, part of `npm run bench`):
// while 300 CSV exports and a styled 1M-row workbook run, raw StartWorkflow on the same Temporal
// server against POST /v1/tasks (one caller, then 16), GET /v1/tasks/:id and 1,000-row sync
// exports (from a source of their own: the load's is saturated). On the embedded start (`npm start`) and on the split deployment (Postgres, the API and
// the worker as processes of their own). Each submission starts a small real export (100 rows), the
// cost any submission brings; the load's exports are 100,000 rows each, more than the measurement
// lasts, and how many had finished by its end is reported (the load must still be there).
import postgres from 'postgres';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../platform/temporal-server.js';
import { BENCH_ADMIN, startEmbedded, startSource, type Source } from './embedded.js';
import { STYLED } from './memory.js';
import { freePort, type NodeChild, processTree, spawnNode } from './measure.js';
import { combineRows, measureCalls, rawStarter, type SubmitRow } from './submit.js';

const LOAD_EXPORTS = 300;
const LOAD_ROWS = 100_000;
const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const ONE = { warmup: 20, n: 200 };
const MANY = { callers: 16, warmup: 48, n: 800 };
const ROUNDS = 4;

export interface LoadFigures {
  mode: 'embedded' | 'split';
  raw1: SubmitRow;
  ours1: SubmitRow;
  rawN: SubmitRow;
  oursN: SubmitRow;
  get: SubmitRow;
  sync: SubmitRow;
  /** Of the load's exports, how many had finished before the 16 callers began, and when the measurements ended. */
  finishedBefore16: number;
  finished: number;
  loadExports: number;
}

interface Service {
  base: string;
  temporalAddress: string;
  temporalPid: number;
  pids: () => number[];
  stop: () => Promise<void>;
}

type Call = (method: string, path: string, token: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;

function caller(base: string): Call {
  return async (method, path, token, body) => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as Record<string, unknown>) : { text } };
  };
}

async function embedded(): Promise<Service> {
  const e = await startEmbedded();
  return { base: e.base, temporalAddress: e.temporalAddress, temporalPid: e.temporalPid, pids: e.pids, stop: e.stop };
}

/** Postgres, a dev server of its own, `dist/app/api.js` and `dist/app/worker.js` (built by startEmbedded's build step in the embedded run). */
async function split(): Promise<Service> {
  const dbName = `dc_bench_load_${Date.now()}`;
  const admin = postgres(`${PG}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const dir = mkdtempSync(join(tmpdir(), 'dc-bench-split-'));
  const temporal = await startDevServer({ port: await freePort(), dbFile: join(dir, 'temporal.db') });
  const port = await freePort();
  const env = { DATABASE_URL: `${PG}/${dbName}`, TEMPORAL_ADDRESS: temporal.address, DATA_DIR: dir, PORT: String(port), ADMIN_TOKEN: BENCH_ADMIN, LINK_SECRET: 'bench-link-secret-0123456789', LOG_LEVEL: 'warn', MALLOC_ARENA_MAX: '2' };
  const api = spawnNode(['dist/app/api.js'], env, ['--max-semi-space-size=2']);
  await api.ready('[download-center] api listening');
  const worker: NodeChild = spawnNode(['dist/app/worker.js'], { ...env, WORKER_METRICS_PORT: String(await freePort()), MALLOC_MMAP_THRESHOLD_: '131072' }, ['--max-semi-space-size=2']);
  await worker.ready('worker polling');
  return {
    base: `http://127.0.0.1:${port}`,
    temporalAddress: temporal.address,
    temporalPid: temporal.child.pid!,
    pids: () => [...processTree(api.child.pid!), ...processTree(worker.child.pid!)],
    stop: async () => {
      for (const c of [api, worker]) c.child.kill('SIGTERM');
      await Promise.all([api.exited, worker.exited]);
      await temporal.stop();
      await admin.unsafe(`drop database ${dbName} with (force)`).catch(() => {});
      await admin.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function project(call: Call, name: string, host: string): Promise<string> {
  const res = await call('POST', '/v1/projects', BENCH_ADMIN, { name, source_hosts: [host], max_running_tasks: 100, submit_per_minute: 10_000, retention_hours: 1 });
  if (res.status !== 201) throw new Error(`project: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.api_key as string;
}

interface LoadTask {
  id: string;
  key: string;
}

/** 300 CSV exports over three projects and one styled 1M-row workbook. */
async function startLoad(call: Call, source: Source): Promise<LoadTask[]> {
  const keys = await Promise.all([0, 1, 2].map((p) => project(call, `bench-load-${p}`, source.host)));
  const tasks: LoadTask[] = [];
  for (let i = 0; i < LOAD_EXPORTS; i++) {
    const res = await call('POST', '/v1/tasks', keys[i % 3]!, { source_url: `${source.url}?total=${LOAD_ROWS}&load=${i}`, operator_id: 'bench-load', page_size: 1000 });
    if (res.status !== 202) throw new Error(`load export ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    tasks.push({ id: res.body.task_id as string, key: keys[i % 3]! });
  }
  const xlsxKey = await project(call, 'bench-load-xlsx', source.host);
  const xlsx = await call('POST', '/v1/tasks', xlsxKey, { source_url: `${source.url}?total=1000000&xlsx=1`, operator_id: 'bench-load', type: 'xlsx', page_size: 1000, ...STYLED });
  if (xlsx.status !== 202) throw new Error(`load workbook: ${xlsx.status} ${JSON.stringify(xlsx.body)}`);
  return [...tasks, { id: xlsx.body.task_id as string, key: xlsxKey }];
}

export async function benchUnderLoad(mode: 'embedded' | 'split'): Promise<LoadFigures> {
  const source = await startSource();
  // The sync caller's source is another system than the load's: the load keeps its own source
  // process saturated (300 exports' pages), and queueing there is not the service's latency.
  const syncSource = await startSource();
  const svc = mode === 'embedded' ? await embedded() : await split();
  const connection = await Connection.connect({ address: svc.temporalAddress });
  try {
    const call = caller(svc.base);
    const load = await startLoad(call, source);
    const keys = await Promise.all(Array.from({ length: 16 }, (_, p) => project(call, `bench-submit-${p}`, source.host)));
    const syncKey = await project(call, 'bench-sync', syncSource.host);
    await new Promise((r) => setTimeout(r, 5000));
    let serial = 0;
    // Each caller's submissions spread over the projects so that none is full (a full project only queues: cheaper than raw).
    const submit = async () => {
      const i = serial++;
      const res = await fetch(`${svc.base}/v1/tasks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[i % keys.length]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ source_url: `${source.url}?total=100&n=${i}`, operator_id: 'bench', page_size: 100 }),
      });
      const text = await res.text();
      if (res.status !== 202) throw new Error(`submission ${i}: ${res.status} ${text}`);
    };
    const getOne = async (i: number) => {
      const task = load[i % LOAD_EXPORTS]!;
      const res = await fetch(`${svc.base}/v1/tasks/${task.id}`, { headers: { authorization: `Bearer ${task.key}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET task: ${res.status}`);
    };
    const syncOne = async () => {
      const i = serial++;
      const res = await fetch(`${svc.base}/v1/tasks/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${syncKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ source_url: `${syncSource.url}?total=1000&n=${i}`, operator_id: 'bench', page_size: 1000 }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`sync export: ${res.status}`);
    };
    const pids = { service: svc.pids, temporal: svc.temporalPid };
    const raw = rawStarter(new Client({ connection }), `load-${mode}`);
    // The load fades as its exports finish: the compared pairs alternate in rounds, so both see the same load.
    const rawOnly = { temporal: svc.temporalPid };
    const [raw1, ours1] = await alternate(ROUNDS, [
      (r) => measureCalls('raw StartWorkflow, 1 caller', rawOnly, 1, r ? 0 : ONE.warmup, ONE.n / ROUNDS, (i) => raw(r * 1000 + i)),
      (r) => measureCalls('POST /v1/tasks, 1 caller', pids, 1, r ? 0 : ONE.warmup, ONE.n / ROUNDS, submit),
    ]);
    const get = await measureCalls('GET /v1/tasks/:id, 1 caller', pids, 1, 20, 300, getOne);
    const sync = await measureCalls('POST /v1/tasks/sync, 1,000 rows, 1 caller', pids, 1, 5, 40, syncOne);
    const finishedBefore16 = await countFinished(call, load);
    const [rawN, oursN] = await alternate(ROUNDS, [
      (r) => measureCalls(`raw StartWorkflow, ${MANY.callers} callers`, rawOnly, MANY.callers, r ? 0 : MANY.warmup, MANY.n / ROUNDS, (i) => raw(100_000 + r * 10_000 + i)),
      (r) => measureCalls(`POST /v1/tasks, ${MANY.callers} callers`, pids, MANY.callers, r ? 0 : MANY.warmup, MANY.n / ROUNDS, submit),
    ]);
    const finished = await countFinished(call, load);
    return { mode, raw1, ours1, rawN, oursN, get, sync, finishedBefore16, finished, loadExports: load.length };
  } finally {
    await connection.close();
    await svc.stop();
    source.stop();
    syncSource.stop();
  }
}

/** `rounds` rounds of each measurement in turn (a, b, a, b …), each joined into one row. */
async function alternate(rounds: number, [a, b]: [(round: number) => Promise<SubmitRow>, (round: number) => Promise<SubmitRow>]): Promise<[SubmitRow, SubmitRow]> {
  const got: [SubmitRow[], SubmitRow[]] = [[], []];
  for (let r = 0; r < rounds; r++) {
    got[0].push(await a(r));
    got[1].push(await b(r));
  }
  return [combineRows(got[0]), combineRows(got[1])];
}

async function countFinished(call: Call, tasks: LoadTask[]): Promise<number> {
  let done = 0;
  for (const { id, key } of tasks) {
    const res = await call('GET', `/v1/tasks/${id}`, key);
    if (['succeeded', 'failed', 'cancelled'].includes(res.body.status as string)) done += 1;
  }
  return done;
}

const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const ok = (met: boolean) => (met ? 'met' : '**not met**');

/** The rows of the issue-13 table for one deployment. */
export function loadRows(f: LoadFigures): string[] {
  const label = f.mode === 'embedded' ? '`npm start`' : 'split (Postgres, api + worker)';
  const during = `(${f.loadExports} exports submitted first; finished before the 16 callers: ${f.finishedBefore16}, by the end: ${f.finished})`;
  return [
    `| ${label}: one caller submitting, under load ${during} | raw StartWorkflow, same server: p50 ${f.raw1.p50Ms} ms | p50 ${f.ours1.p50Ms} ms, p99 ${f.ours1.p99Ms} ms | ${x(f.ours1.p50Ms, f.raw1.p50Ms)} | ≤ 2x: ${ok(f.ours1.p50Ms <= 2 * f.raw1.p50Ms)} |`,
    `| ${label}: 16 callers submitting, under load | raw: ${f.rawN.perSecond}/s, p99 ${f.rawN.p99Ms} ms | ${f.oursN.perSecond}/s, p99 ${f.oursN.p99Ms} ms | ${x(f.oursN.perSecond, f.rawN.perSecond)} | ≥ 0.9x and p99 < 100 ms: ${ok(f.oursN.perSecond >= 0.9 * f.rawN.perSecond && f.oursN.p99Ms < 100)} |`,
    `| ${label}: GET /v1/tasks/:id under load | — | p50 ${f.get.p50Ms} ms, p99 ${f.get.p99Ms} ms | | p99 < 50 ms: ${ok(f.get.p99Ms < 50)} |`,
    `| ${label}: sync export, 1,000 rows, under load | — | p50 ${f.sync.p50Ms} ms, p95 ${f.sync.p95Ms} ms | | p95 < 300 ms: ${ok(f.sync.p95Ms < 300)} |`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const mode = process.argv[2] === 'split' ? 'split' : 'embedded';
  const f = await benchUnderLoad(mode);
  console.log(JSON.stringify(f));
  console.log(loadRows(f).join('\n'));
}
