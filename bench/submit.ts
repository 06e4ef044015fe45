// Issue 13, target 3: submitting a task (POST /v1/tasks) on the embedded start (`npm start`)
// against raw StartWorkflow on the same Temporal dev server, measured in the same run.
//
// Fairness: the raw start is the start our API makes (the export workflow type, the same input
// shape, search attributes, summary and details, priority and fairness key) on a task queue no
// worker polls, so it is the server's own cost and nothing else. Our submissions start real runs
// on the polled queue: the worker takes each run's first steps (a workflow task, startTask, the
// probe), the cost any submission brings. The source answers after 10 minutes, so the runs then
// wait on the probe without using CPU instead of exporting beside the measurement. A project has
// at most 100 slots: the callers move to a fresh project every 90 submissions, so every
// submission starts its run (a full project would only queue it, which is cheaper than raw).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DC_EXPORT_TYPE, DC_OPERATOR_ID, DC_PROJECT_ID, DC_STATUS } from '../model/search-attributes.js';
import { startDevServer } from '../platform/temporal-server.js';
import { BENCH_ADMIN, startEmbedded, startSource } from './embedded.js';
import { cpuSeconds, freePort, treeCpuSeconds } from './measure.js';

const ONE = { warmup: 30, n: 200 };
const MANY = { callers: 16, warmup: 64, n: 960 };
const PER_PROJECT = 90;

export interface SubmitRow {
  what: string;
  callers: number;
  n: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  perSecond: number;
  load1m: number;
  /** Ours: how long after the last answer the last submission's run had started (they start after the answer). */
  lastRunStartedAfterMs?: number;
  /** CPU ms per call of the `npm start` process (0 for raw) and of the Temporal dev server: less noisy than times on a busy machine. */
  cpuMsPerCall: { service: number; temporal: number };
  /** Each call's milliseconds, in order (to join rounds: combineRows). */
  ms: number[];
}

/** Rounds of the same measurement as one row: percentiles over all their calls, the rate over their summed time. */
export function combineRows(rows: SubmitRow[]): SubmitRow {
  const ms = rows.flatMap((r) => r.ms).sort((a, b) => a - b);
  const n = ms.length;
  const wall = rows.reduce((s, r) => s + r.n / r.perSecond, 0);
  const avg = (f: (r: SubmitRow) => number) => round(rows.reduce((s, r) => s + f(r) * r.n, 0) / n, 2);
  return {
    ...rows[0]!,
    n,
    p50Ms: round(pct(ms, 50)),
    p95Ms: round(pct(ms, 95)),
    p99Ms: round(pct(ms, 99)),
    perSecond: round(n / wall),
    load1m: avg((r) => r.load1m),
    cpuMsPerCall: { service: avg((r) => r.cpuMsPerCall.service), temporal: avg((r) => r.cpuMsPerCall.temporal) },
    ms,
  };
}

/** The processes whose CPU a measurement charges to each call. */
export interface Pids {
  /** The service's processes (the embedded start: the API process and its worker process). */
  service?: () => number[];
  temporal: number;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** `n` calls of `fn` by `callers` concurrent callers (each call numbered), after `warmup` untimed ones. */
export async function measureCalls(what: string, pids: Pids, callers: number, warmup: number, n: number, fn: (i: number) => Promise<void>): Promise<SubmitRow> {
  let next = 0;
  const run = async (count: number, out: number[]) => {
    const limit = next + count;
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (next < limit) {
          const i = next++;
          const t0 = performance.now();
          await fn(i);
          out.push(performance.now() - t0);
        }
      }),
    );
  };
  await run(warmup, []);
  const load1m = round(loadavg()[0]!, 2);
  const ms: number[] = [];
  const cpu0 = { service: pids.service ? treeCpuSeconds(pids.service()) : 0, temporal: cpuSeconds(pids.temporal) };
  const t0 = performance.now();
  await run(n, ms);
  const wall = (performance.now() - t0) / 1000;
  const perCall = (seconds: number, s0: number) => round(((seconds - s0) * 1000) / n, 2);
  const cpuMsPerCall = { service: pids.service ? perCall(treeCpuSeconds(pids.service()), cpu0.service) : 0, temporal: perCall(cpuSeconds(pids.temporal), cpu0.temporal) };
  const sorted = [...ms].sort((a, b) => a - b);
  return { what, callers, n, p50Ms: round(pct(sorted, 50)), p95Ms: round(pct(sorted, 95)), p99Ms: round(pct(sorted, 99)), perSecond: round(n / wall), load1m, cpuMsPerCall, ms };
}

/** dc_run_starts_total of the embedded start, all labels. */
async function runsStarted(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${BENCH_ADMIN}` } })).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('dc_run_starts_total{'))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}

/** Starts the export workflow as domain/tasks/admission/run.ts does, on a queue nobody polls. */
export function rawStarter(client: Client, tag: string) {
  return async (i: number) => {
    const id = `raw-${tag}-${i}`;
    await client.workflow.start('exportWorkflow', {
      workflowId: id,
      taskQueue: 'bench-unpolled',
      args: [{ taskId: id, type: 'csv', retry: { initialMs: 1000, maxAttempts: 5, maxIntervalMs: 60_000, backoff: 'exponential' }, run: 1, callback: false, heartbeatTimeoutMs: 10_000 }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      priority: { priorityKey: 3, fairnessKey: 'prj_bench' },
      typedSearchAttributes: [
        { key: DC_PROJECT_ID, value: 'prj_bench' },
        { key: DC_OPERATOR_ID, value: 'bench' },
        { key: DC_EXPORT_TYPE, value: 'csv' },
        { key: DC_STATUS, value: 'queued' },
      ],
      staticSummary: `bench · bench · csv · export-2026-11-24-${id}`,
      staticDetails: `**Source host:** 127.0.0.1\n**Page size:** 500 · **priority:** 3\n**Template:** none\n**Task:** http://localhost/v1/tasks/${id}`,
    });
  };
}

async function rawRows(address: string, temporal: number, label: string): Promise<SubmitRow[]> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  try {
    return [
      await measureCalls(`${label}, 1 caller`, { temporal }, 1, ONE.warmup, ONE.n, rawStarter(client, `${label}-1`)),
      await measureCalls(`${label}, ${MANY.callers} callers`, { temporal }, MANY.callers, MANY.warmup, MANY.n, rawStarter(client, `${label}-16`)),
    ];
  } finally {
    await connection.close();
  }
}

/** Raw StartWorkflow on a dev server of its own with and without WAL (cheap: a few seconds each). */
async function walComparison(): Promise<SubmitRow[]> {
  const rows: SubmitRow[] = [];
  for (const wal of [false, true]) {
    const dir = mkdtempSync(join(tmpdir(), 'dc-bench-wal-'));
    const server = await startDevServer({ port: await freePort(), dbFile: join(dir, 'temporal.db'), wal });
    try {
      rows.push(...(await rawRows(server.address, server.child.pid!, `raw StartWorkflow, own dev server, ${wal ? 'WAL + synchronous=normal' : 'default journal (before)'}`)));
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
}

export async function benchSubmit(): Promise<SubmitRow[]> {
  const rows = await walComparison();
  const source = await startSource({ delayMs: 600_000 });
  // The probe waits for the slow source instead of timing out and retrying during the run.
  const svc = await startEmbedded({ SOURCE_TIMEOUT_MS: '900000' });
  try {
    const keys: string[] = [];
    const projects = Math.ceil((ONE.warmup + ONE.n + MANY.warmup + MANY.n) / PER_PROJECT) + 1;
    for (let p = 0; p < projects; p++) {
      const body = { name: `bench-submit-${p}`, source_hosts: [source.host], max_running_tasks: 100, submit_per_minute: 10_000 };
      const created = await svc.call('POST', '/v1/projects', BENCH_ADMIN, body);
      if (created.status !== 201) throw new Error(`project: ${created.status} ${JSON.stringify(created.body)}`);
      keys.push(created.body.api_key as string);
    }
    let serial = 0;
    const submit = async () => {
      const i = serial++;
      const res = await fetch(`${svc.base}/v1/tasks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[Math.floor(i / PER_PROJECT)]}`, 'content-type': 'application/json' },
        body: JSON.stringify({ source_url: `${source.url}?total=1000&n=${i}`, operator_id: 'bench' }),
      });
      const text = await res.text();
      if (res.status !== 202) throw new Error(`submission ${i}: ${res.status} ${text}`);
    };
    const raw = await rawRows(svc.temporalAddress, svc.temporalPid, 'raw StartWorkflow, the embedded dev server');
    const pids = { service: svc.pids, temporal: svc.temporalPid };
    const ours = [await measureCalls('POST /v1/tasks, 1 caller', pids, 1, ONE.warmup, ONE.n, submit), await measureCalls(`POST /v1/tasks, ${MANY.callers} callers`, pids, MANY.callers, MANY.warmup, MANY.n, submit)];
    // The runs start after the answers (domain/tasks/admission/starter.ts): how long after the last answer the last run started.
    const t0 = performance.now();
    while ((await runsStarted(svc.base)) < serial) {
      if (performance.now() - t0 > 120_000) throw new Error(`the runs of ${serial} submissions had not all started 2 minutes after the last answer`);
      await new Promise((r) => setTimeout(r, 20));
    }
    ours[1]!.lastRunStartedAfterMs = Math.round(performance.now() - t0);
    rows.push(raw[0]!, ours[0]!, raw[1]!, ours[1]!);
  } finally {
    await svc.stop();
    source.stop();
  }
  return rows;
}

/** The rows as a Markdown table, with the target's ratios against raw StartWorkflow on the embedded server. */
export function submitTable(rows: SubmitRow[]): string {
  const find = (what: string) => rows.find((r) => r.what === what)!;
  const raw1 = find('raw StartWorkflow, the embedded dev server, 1 caller');
  const rawN = find(`raw StartWorkflow, the embedded dev server, ${MANY.callers} callers`);
  const ours1 = find('POST /v1/tasks, 1 caller');
  const oursN = find(`POST /v1/tasks, ${MANY.callers} callers`);
  const lines = ['| what | n | p50 / p95 / p99 (ms) | per second | CPU ms per call: service / Temporal | load (1 min) |', '| --- | --- | --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| ${r.what} | ${r.n} | ${r.p50Ms} / ${r.p95Ms} / ${r.p99Ms} | ${r.perSecond} | ${r.cpuMsPerCall.service} / ${r.cpuMsPerCall.temporal} | ${r.load1m} |`);
  lines.push('', `1 caller: POST p50 / raw p50 = ${round(ours1.p50Ms / raw1.p50Ms, 2)}x (target ≤ 2x)`);
  lines.push(`${MANY.callers} callers: POST throughput / raw = ${round(oursN.perSecond / rawN.perSecond, 2)}x (target ≥ 0.9x), POST p99 ${oursN.p99Ms} ms (target < 100 ms); the last run started ${oursN.lastRunStartedAfterMs} ms after the last answer`);
  return lines.join('\n');
}
