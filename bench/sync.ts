// `npm run bench -- sync` (issue 13, target 2): POST /v1/tasks/sync latency on the embedded start
// (`npm start`: API, worker and PGlite in one process, a spawned dev server), for 1,000 and 10,000
// rows from the generator source, one request at a time after a warm-up. The route's
// Server-Timing header (api/routes/sync.ts) says where each request's milliseconds went; the
// Temporal SDK's metrics on /metrics give each local activity's mean.
import { loadavg } from 'node:os';
import { BENCH_ADMIN, startEmbedded, startSource } from './embedded.js';

export interface SyncRow {
  rows: number;
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** Requests whose run started eagerly on the API process's own worker. */
  eager: number;
  /** Mean milliseconds per Server-Timing step (submit, start, export, send, …). */
  steps: Record<string, number>;
  /** Mean milliseconds per local activity type, from the SDK's histograms. */
  activities: Record<string, number>;
  load: [number, number];
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (x: number) => Math.round(x * 10) / 10;

/** Sum and count of one histogram per activity type, as /metrics prints them (seconds). */
function activityTimes(metrics: string): Map<string, { sum: number; count: number }> {
  const out = new Map<string, { sum: number; count: number }>();
  for (const line of metrics.split('\n')) {
    const m = /^temporal_local_activity_execution_latency(?:_seconds)?_(sum|count)\{[^}]*activity_type="([^"]+)"[^}]*\} ([0-9.e+-]+)/.exec(line);
    if (!m) continue;
    const e = out.get(m[2]!) ?? { sum: 0, count: 0 };
    e[m[1] as 'sum' | 'count'] += Number(m[3]);
    out.set(m[2]!, e);
  }
  return out;
}

export async function benchSync(opts: { small?: number; large?: number; warmup?: number } = {}): Promise<SyncRow[]> {
  const [small, large, warmup] = [opts.small ?? 200, opts.large ?? 50, opts.warmup ?? 30];
  const source = await startSource();
  const svc = await startEmbedded();
  try {
    const project = await svc.call('POST', '/v1/projects', BENCH_ADMIN, { name: 'bench-sync', source_hosts: [source.host], retention_hours: 1, submit_per_minute: 10_000 });
    if (project.status !== 201) throw new Error(`project: ${JSON.stringify(project.body)}`);
    const key = project.body.api_key as string;
    let n = 0;
    let eager = 0;
    const once = async (rows: number) => {
      const steps: Record<string, number> = {};
      const t0 = performance.now();
      const res = await fetch(`${svc.base}/v1/tasks/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        // A new query string each time: an identical request still running would be de-duplicated.
        body: JSON.stringify({ source_url: `${source.url}?total=${rows}&n=${n++}`, operator_id: 'bench', page_size: 1000 }),
      });
      const body = await res.arrayBuffer();
      const ms = performance.now() - t0;
      if (res.status !== 200) throw new Error(`sync export answered ${res.status}: ${Buffer.from(body).toString().slice(0, 300)}`);
      const timing = res.headers.get('server-timing') ?? '';
      for (const part of timing.split(',')) {
        const m = /^\s*([\w-]+);dur=([0-9.]+)/.exec(part);
        if (m) steps[m[1]!] = Number(m[2]);
      }
      if (timing.includes('desc="eager"')) eager += 1;
      return { ms, steps };
    };
    const metrics = async () => activityTimes(await (await fetch(`${svc.base}/metrics`, { headers: { authorization: `Bearer ${BENCH_ADMIN}` } })).text());
    // The first after the start also starts the API process's sync Worker (app/sync-worker.ts).
    const first = await once(1000);
    console.error(`[bench] the first sync export after the start, 1,000 rows: ${round(first.ms)} ms, of which the sync Worker's start ${first.steps.worker ?? '—'} ms`);
    for (let i = 0; i < warmup; i++) await once(i % 2 ? 1000 : 10_000);
    const out: SyncRow[] = [];
    for (const [rows, requests] of [[1000, small], [10_000, large]] as const) {
      const loadBefore = loadavg()[0]!;
      eager = 0;
      const before = await metrics();
      const times: number[] = [];
      const sums: Record<string, number> = {};
      for (let i = 0; i < requests; i++) {
        const { ms, steps } = await once(rows);
        times.push(ms);
        for (const [k, v] of Object.entries(steps)) sums[k] = (sums[k] ?? 0) + v;
      }
      const after = await metrics();
      const activities: Record<string, number> = {};
      for (const [type, a] of after) {
        const b = before.get(type) ?? { sum: 0, count: 0 };
        if (a.count > b.count) activities[type] = round(((a.sum - b.sum) / (a.count - b.count)) * 1000);
      }
      times.sort((a, b) => a - b);
      out.push({
        rows,
        requests,
        p50: round(pct(times, 50)),
        p95: round(pct(times, 95)),
        p99: round(pct(times, 99)),
        max: round(times.at(-1)!),
        eager,
        steps: Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, round(v / requests)])),
        activities,
        load: [round(loadBefore * 100) / 100, round(loadavg()[0]! * 100) / 100],
      });
    }
    return out;
  } finally {
    await svc.stop();
    source.stop();
  }
}

export function syncTable(rows: SyncRow[]): string {
  const lines = [
    '| rows | requests (eager starts) | p50 / p95 / p99 / max (ms) | mean per step (ms, Server-Timing) | mean per local activity (ms) | load 1m before / after |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  const kv = (o: Record<string, number>) => Object.entries(o).map(([k, v]) => `${k} ${v}`).join(', ') || '—';
  for (const r of rows) lines.push(`| ${r.rows} | ${r.requests} (${r.eager}) | ${r.p50} / ${r.p95} / ${r.p99} / ${r.max} | ${kv(r.steps)} | ${kv(r.activities)} | ${r.load[0]} / ${r.load[1]} |`);
  return lines.join('\n');
}
