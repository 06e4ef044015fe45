// `npm run bench [-- 100MB 1GB] [--repeat N]`: CSV exports of the given sizes from a local generator
// source (bench/source.ts, its own process) through the real service: a Temporal dev server,
// Postgres, the API in this process and the worker as its own process (fresh for each run, so its
// peak RSS is that run's). Each size is also exported by bench/bare.ts, the baseline; both files
// must be equal. Runs are sequential; with --repeat, the pair runs N times in alternating order
// and the table gives medians. Results: a Markdown table, and every run in .bench/results.json.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { rowColumns } from '../domain/formats/columns.js';
import { encodeCsvRows } from '../domain/formats/csv/encode.js';
import { loadConfig } from '../platform/config.js';
import { MAX_FILE_BYTES } from '../model/project-settings.js';
import { connectTemporal, openCore } from '../app/runtime.js';
import { startApi } from '../app/runtime-api.js';
import { projectRoot } from '../platform/paths.js';
import { startDevServer } from '../platform/temporal-server.js';
import { benchSubmit, submitTable } from './submit.js';
import { benchUnderLoad, loadRows } from './under-load.js';
import { benchCsvOnly, benchIssue13 } from './issue13.js';
import { benchMemory } from './memory.js';
import { benchWs } from './ws.js';
import { benchSessions } from './sessions.js';
import { benchSync, syncTable } from './sync.js';
import { benchHistory } from './history.js';
import { benchExpiry } from './expiry.js';
import { benchFormats } from './formats.js';
import { benchEncode } from './encode-formats.js';
import { benchEncodeMasked } from './encode-masked.js';
import { benchCsvDialects } from './csv-dialects.js';
import { benchParquetWriters } from './parquet-writers.js';
import { fuzzFormats } from './fuzz-formats.js';
import { cpuSeconds, dirBytes, freePort, machineBusySeconds, median, phaseSpans, rssMb, spawnNode, workflowClosed } from './measure.js';

const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const PAGE_SIZE = 1000;
const ADMIN = 'bench-admin-token-0123456789';
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

const parseSize = (s: string) => {
  const m = /^(\d+(?:\.\d+)?)(MB|GB)$/i.exec(s);
  if (!m) throw new Error(`size must look like 100MB or 1GB: ${s}`);
  return Number(m[1]) * (m[2]!.toUpperCase() === 'GB' ? 1e9 : 1e6);
};

const load1m = () => round(loadavg()[0]!, 2);

async function main() {
  const { values, positionals } = parseArgs({ options: { repeat: { type: 'string' }, rows: { type: 'string' }, only: { type: 'string' }, runs: { type: 'string' }, seed: { type: 'string' } }, allowPositionals: true });
  // Issue 13's table takes the median of five CSV runs by default: this VM's speed drifts.
  const repeat = Number(values.repeat ?? (positionals.length === 0 ? 5 : 1));
  // `sync` alone: POST /v1/tasks/sync latency on the embedded start (bench/sync.ts).
  if (positionals.length === 1 && positionals[0] === 'sync') return console.log(syncTable(await benchSync()));
  if (positionals.length === 1 && positionals[0] === 'csv') return benchCsvOnly(repeat);
  // `parquet [--rows N] [--only NAME] [--repeat N]`: the service's Parquet render against DuckDB's
  // one-thread conversion of the same rows, then the whole export against CSV's (bench/parquet-writers.ts, ADR 0050).
  if (positionals[0] === 'parquet') {
    const rows = Number(values.rows ?? 1_000_000);
    console.log(await benchParquetWriters(rows, values.only, values.repeat ? repeat : 1));
    // The whole export against CSV's, through the embedded start (bench/formats.ts); not with --only.
    if (!values.only) console.log(`\nWhole export, ${await benchFormats(rows, values.repeat ? repeat : 1, 'csv,parquet')}`);
    return;
  }
  // `encode`: a page's encoding alone, CSV's transcoder beside JSON Lines' (bench/encode-formats.ts).
  if (positionals[0] === 'encode') return console.log(benchEncode(Number(values.rows ?? 1_000_000)));
  // `encode-masked`: a CSV page with masked columns beside the same page unmasked (bench/encode-masked.ts).
  if (positionals[0] === 'encode-masked') return console.log(benchEncodeMasked(Number(values.rows ?? 200_000)));
  // `csv-dialects`: both CSV encoders in every csv_delimiter / csv_line_ending and with a time_zone (bench/csv-dialects.ts).
  if (positionals[0] === 'csv-dialects') return console.log(benchCsvDialects(Number(values.rows ?? 1_000_000)));
  // `formats [--rows N] [--only TYPE]`: one source exported as csv, jsonl, parquet and compressed (bench/formats.ts).
  if (positionals[0] === 'formats') return console.log(await benchFormats(Number(values.rows ?? 1_000_000), repeat, values.only));
  // `fuzz-formats [--runs N] [--seed S]`: the differential format test, longer and shrinking (bench/fuzz-formats.ts).
  if (positionals[0] === 'fuzz-formats') return console.log(await fuzzFormats(Number(values.runs ?? 200), values.seed === undefined ? undefined : Number(values.seed)));
  // `sessions`: an operator token's check beside a project key's (bench/sessions.ts).
  if (positionals.length === 1 && positionals[0] === 'sessions') return console.log(await benchSessions());
  // `history [1M|5M] [pglite]`: every list page over a long history (bench/history.ts, issue 24);
  // `history expiry [1M]`: submissions while the cleaner expires a backlog (bench/expiry.ts).
  if (positionals[0] === 'history' && positionals.includes('expiry')) {
    const size = positionals.find((x) => /^\d+(\.\d+)?M$/i.test(x));
    return console.log(await benchExpiry(size ? Number(size.slice(0, -1)) * 1e6 : 1_000_000));
  }
  if (positionals[0] === 'history') {
    const pglite = positionals.includes('pglite');
    const size = positionals.find((x) => /^\d+M$/i.test(x));
    return console.log(await benchHistory(size ? Number(size.slice(0, -1)) * 1e6 : pglite ? 100_000 : 1_000_000, pglite ? 'pglite' : 'postgres'));
  }
  // `load [embedded|split]`: the API while 300 exports run (bench/under-load.ts).
  if (positionals[0] === 'load') return console.log(loadRows(await benchUnderLoad(positionals[1] === 'split' ? 'split' : 'embedded')).join('\n'));
  if (positionals.includes('submit')) return console.log(submitTable(await benchSubmit())); // issue 13, target 3 (bench/submit.ts)
  // `memory [1GB]`: the embedded start's idle and export peaks alone (bench/memory.ts);
  // BENCH_NODE_ARGS adds node flags to that process (e.g. --import bench/mem-probe.mjs).
  if (positionals[0] === 'memory') return console.log(await benchMemory(positionals.includes('1GB')));
  // No argument: issue 13's table (bench/issue13.ts). `ws` runs the WebSocket benchmark (bench/ws.ts);
  // sizes (`100MB 1GB`) the split-mode CSV exports below.
  if (positionals.length === 0) return benchIssue13(repeat);
  const ws = positionals.includes('ws');
  const sizes = positionals.filter((p) => p !== 'ws');
  const targets = sizes.map((s) => ({ label: s, bytes: parseSize(s) }));
  if (targets.length === 0) return wsTable(ws);
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-bench-'));
  const dbName = `dc_bench_${Date.now()}`;
  const admin = postgres(`${PG}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const temporal = await startDevServer({ port: await freePort() });
  const srcPort = await freePort();
  const source = spawnNode(['bench/source.ts', String(srcPort)], {});
  await source.ready('listening');
  const srcPid = source.child.pid!;
  const sourceUrl = `http://127.0.0.1:${srcPort}/export`;
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: `${PG}/${dbName}`,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'bench',
    ADMIN_TOKEN: ADMIN,
    LINK_SECRET: 'bench-link-secret-0123456789',
    LOG_LEVEL: 'warn',
    PORT: String(await freePort()),
    WORKER_METRICS_PORT: '0',
    // As `npm run worker` and the image set them.
    MALLOC_ARENA_MAX: '2',
    MALLOC_MMAP_THRESHOLD_: '131072',
  };
  const config = loadConfig(env);
  const core = await openCore(config);
  const client = await connectTemporal(config, temporal.address);
  const api = await startApi({ ...core, temporal: client });
  const base = `http://127.0.0.1:${config.PORT}`;
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON, checked by use
  };
  const project = await call('POST', '/v1/projects', ADMIN, { name: 'bench', source_hosts: [`127.0.0.1:${srcPort}`], retention_hours: 1 });

  // Rows per target size, from the CSV bytes of a sample page; then the source's JIT is warmed
  // up, so whichever of the pair runs first is not charged for it.
  const sample = (await (await fetch(`${sourceUrl}?total=1000&page=0&page_size=1000`)).json()) as { data: Record<string, unknown>[] };
  const bytesPerRow = encodeCsvRows(sample.data, rowColumns(sample.data[0])).length / 1000;
  for (let p = 0; p < 300; p++) await (await fetch(`${sourceUrl}?total=300000&page=${p}&page_size=1000`)).arrayBuffer();

  /** The baseline script, in its own process. */
  async function runBare(url: string) {
    const out = join(dataDir, 'bare.csv');
    const [load, src0, busy0] = [load1m(), cpuSeconds(srcPid), machineBusySeconds()];
    const bare = spawnNode(['bench/bare.ts', url, String(PAGE_SIZE), out], {});
    await bare.exited;
    const b = JSON.parse(bare.out().trim().split('\n').at(-1)!) as { ms: number; bytes: number; sha256: string; maxRssMb: number; cpuSeconds: number };
    rmSync(out, { force: true });
    return { ...b, load, sourceCpu: cpuSeconds(srcPid) - src0, machineBusy: machineBusySeconds() - busy0 };
  }

  /** The service: a fresh worker process, the task submitted through the API. */
  async function runService(label: string, url: string) {
    // BENCH_WORKER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=.bench" profiles the worker.
    // The worker as production runs it (split mode): the compiled tree under plain node.
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-changed', '--quiet'], { cwd: projectRoot, stdio: 'inherit' });
    const worker = spawnNode(['dist/app/worker.js'], env, ['--max-semi-space-size=2', ...(process.env.BENCH_WORKER_NODE_OPTIONS ?? '').split(' ').filter(Boolean)]);
    await worker.ready('worker polling');
    try {
      return await measureService(worker.child.pid!, label, url);
    } finally {
      // A failed run must not leave the worker polling: it would load the runs after it.
      if (worker.child.exitCode === null) {
        worker.child.kill('SIGTERM');
        await worker.exited;
      }
    }
  }

  /** One export through the API while the worker `pid` runs it: times, CPU, memory, its history. */
  async function measureService(pid: number, label: string, url: string) {
    const idleRss = rssMb(pid).rss;
    const [load, worker0, src0, busy0] = [load1m(), cpuSeconds(pid), cpuSeconds(srcPid), machineBusySeconds()];
    const rss: number[] = [];
    let staged = 0;
    const sampler = setInterval(() => rss.push(rssMb(pid).rss), 250);
    const stager = setInterval(() => (staged = Math.max(staged, dirBytes(join(dataDir, 'store', 'staging')))), 1000);
    const t0 = Date.now();
    // One file, as the baseline writes: the default CSV split at 512 MiB would make parts and a zip.
    const submitted = await call('POST', '/v1/tasks', project.api_key, { source_url: url, operator_id: 'bench', page_size: PAGE_SIZE, file_name: `bench-${label}`, max_file_bytes: MAX_FILE_BYTES });
    // The workflow's result arrives by long poll the moment it completes: no polling interval in
    // the figure. The task's own finished_at (when it turned succeeded) ends the end-to-end time.
    await workflowClosed(client, submitted.task_id);
    const handle = client.workflow.getHandle(submitted.task_id);
    const workflowMs = Date.now() - t0;
    clearInterval(sampler);
    clearInterval(stager);
    const [workerCpu, sourceCpu, machineBusy] = [cpuSeconds(pid) - worker0, cpuSeconds(srcPid) - src0, machineBusySeconds() - busy0];
    const peak = rssMb(pid).hwm;
    const task = await call('GET', `/v1/tasks/${submitted.task_id}`, project.api_key);
    const ms = Date.parse(task.finished_at) - t0;
    const events = (await handle.fetchHistory()).events ?? [];
    if (task.status !== 'succeeded') throw new Error(`export failed: ${JSON.stringify(task.error)}`);
    await core.storage.deletePrefix(`files/${task.task_id}`);
    const quarter = (q: number) => Math.round(rss[Math.min(rss.length - 1, Math.floor((rss.length * q) / 4))] ?? 0);
    return { ms, workflowMs, files: task.files as Array<{ bytes: number; sha256: string }>, load, workerCpu, sourceCpu, machineBusy, idleRss, peak, rssSamples: rss, rssQuarters: [1, 2, 3, 4].map(quarter), staged, history: events.length, phases: phaseSpans(events) };
  }

  const results: Array<Record<string, any>> = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- rows of the table below
  try {
    for (const t of targets) {
      const total = Math.round(t.bytes / bytesPerRow);
      const url = `${sourceUrl}?total=${total}`;
      for (let i = 0; i < repeat; i++) {
        console.error(`[bench] ${t.label} run ${i + 1}/${repeat}: ${total} rows, ${Math.ceil(total / PAGE_SIZE)} pages; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
        let b: Awaited<ReturnType<typeof runBare>>;
        let s: Awaited<ReturnType<typeof runService>>;
        if (i % 2 === 0) {
          b = await runBare(url);
          s = await runService(t.label, url);
        } else {
          s = await runService(t.label, url);
          b = await runBare(url);
        }
        const r = {
          size: t.label,
          run: i + 1,
          order: i % 2 === 0 ? 'bare first' : 'service first',
          rows: total,
          pages: Math.ceil(total / PAGE_SIZE),
          fileBytes: s.files[0]!.bytes,
          sameAsBare: s.files.length === 1 && s.files[0]!.sha256 === b.sha256,
          serviceSeconds: s.ms / 1000,
          workflowSeconds: s.workflowMs / 1000,
          serviceRowsPerSec: Math.round(total / (s.ms / 1000)),
          bareSeconds: b.ms / 1000,
          ratio: round(s.ms / b.ms, 2),
          workerCpuSeconds: round(s.workerCpu),
          bareCpuSeconds: b.cpuSeconds,
          sourceCpuSeconds: { bare: round(b.sourceCpu), service: round(s.sourceCpu) },
          machineBusyCpuSeconds: { bare: round(b.machineBusy), service: round(s.machineBusy) },
          workerIdleRssMb: Math.round(s.idleRss),
          workerPeakRssMb: Math.round(s.peak),
          // The same 250 ms sampler as every memory figure of issue 13 (bench/csv.ts sampleRss).
          workerSampledPeakRssMb: Math.round(Math.max(...s.rssSamples)),
          workerRssAtQuartersMb: s.rssQuarters,
          bareMaxRssMb: b.maxRssMb,
          stagedPeakBytes: s.staged,
          historyEvents: s.history,
          loadAvg1mBefore: { bare: b.load, service: s.load },
          phases: s.phases,
        };
        console.error(`[bench] ${JSON.stringify(r)}`);
        results.push(r);
      }
    }
  } finally {
    api.close();
    await client.connection.close();
    await core.database.close();
    source.child.kill('SIGTERM');
    await temporal.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }

  mkdirSync(join(projectRoot, '.bench'), { recursive: true });
  const cpu = execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim();
  writeFileSync(join(projectRoot, '.bench', 'results.json'), JSON.stringify({ at: new Date().toISOString(), cpu, results }, null, 2));
  console.log(table(targets.map((t) => results.filter((r) => r.size === t.label))));
  await wsTable(ws);
}

/** 10,000 subscribers on one API process, then 5,000 on each of two (issue 15's target). */
async function wsTable(run: boolean): Promise<void> {
  if (!run) return;
  const rows = [await benchWs(10_000, 1), await benchWs(10_000, 2)];
  console.log(`\nWebSocket: one 20,000-row export, lag from finished_at to each subscriber's task.succeeded (load ${load1m()})\n`);
  console.log('| API processes | subscribers | subscribed | got the final event | lag p50 / p99 / max (ms) | API peak RSS (MB) |\n| --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.apis} | ${r.subscribers} | ${r.subscribed} | ${r.received} | ${r.p50} / ${r.p99} / ${r.max} | ${r.apiRssMb.join(', ')} |`);
}

/** One column per size: medians over its runs (the ratio is the median of the per-run ratios), peaks as maxima. */
function table(bySize: Array<Array<Record<string, any>>>): string { // eslint-disable-line @typescript-eslint/no-explicit-any -- rows from main()
  const med = (runs: Array<Record<string, any>>, f: (r: Record<string, any>) => number) => median(runs.map(f)); // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
  const col = (f: (runs: Array<Record<string, any>>) => string | number) => bySize.map(f); // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
  const rows: Array<Array<string | number>> = [
    ['', ...col((r) => `${r[0]!.size} (${r.length} run${r.length > 1 ? 's' : ''})`)],
    ['rows / pages', ...col((r) => `${r[0]!.rows.toLocaleString('en')} / ${r[0]!.pages}`)],
    ['file bytes', ...col((r) => r[0]!.fileBytes.toLocaleString('en'))],
    ['service wall time: submit → succeeded (s)', ...col((r) => med(r, (x) => x.serviceSeconds).toFixed(2))],
    ['service: workflow closed, after cleanup (s)', ...col((r) => med(r, (x) => x.workflowSeconds).toFixed(2))],
    ['bare script (s)', ...col((r) => med(r, (x) => x.bareSeconds).toFixed(2))],
    ['service / bare', ...col((r) => `${med(r, (x) => x.ratio)}x (runs: ${r.map((x) => x.ratio).join(', ')})`)],
    ['service rows/s', ...col((r) => Math.round(r[0]!.rows / med(r, (x) => x.serviceSeconds)).toLocaleString('en'))],
    ['same bytes as bare', ...col((r) => (r.every((x) => x.sameAsBare) ? 'yes' : 'NO'))],
    ['CPU s: worker / bare script', ...col((r) => `${med(r, (x) => x.workerCpuSeconds)} / ${med(r, (x) => x.bareCpuSeconds)}`)],
    ['CPU s of the source: for service / for bare', ...col((r) => `${med(r, (x) => x.sourceCpuSeconds.service)} / ${med(r, (x) => x.sourceCpuSeconds.bare)}`)],
    ['machine busy CPU s during: service / bare', ...col((r) => `${med(r, (x) => x.machineBusyCpuSeconds.service)} / ${med(r, (x) => x.machineBusyCpuSeconds.bare)}`)],
    ['worker RSS idle before the export (MB)', ...col((r) => med(r, (x) => x.workerIdleRssMb))],
    ['worker peak RSS (MB, highest run)', ...col((r) => Math.max(...r.map((x) => x.workerPeakRssMb)))],
    ['worker RSS at 25/50/75/100% (MB, first run)', ...col((r) => r[0]!.workerRssAtQuartersMb.join(' / '))],
    ['bare script peak RSS (MB, highest run)', ...col((r) => Math.max(...r.map((x) => x.bareMaxRssMb)))],
    ['staged bytes at peak', ...col((r) => Math.max(...r.map((x) => x.stagedPeakBytes)).toLocaleString('en'))],
    ['history events', ...col((r) => med(r, (x) => x.historyEvents))],
    ['load average before (1 min, per run)', ...col((r) => r.map((x) => `${x.loadAvg1mBefore.bare}/${x.loadAvg1mBefore.service}`).join(', '))],
  ];
  return rows.map((r, i) => `| ${r.join(' | ')} |${i === 0 ? `\n|${' --- |'.repeat(r.length)}` : ''}`).join('\n');
}

await main();
process.exit(0);
