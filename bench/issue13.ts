// `npm run bench` (no argument): issue 13's table, every figure from one run on this machine, each
// beside its anchor. The embedded start (`npm start`) for CSV, memory, sync and submissions; the
// split worker (`dist/app/worker.js` on Postgres) for the worker's own peak; the xlsx writers in
// their own processes. Prints one Markdown table and writes it into docs/performance.md.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../platform/paths.js';
import { resolveTemporalBin } from '../platform/temporal-server.js';
import { benchCsvCase, type CsvResult } from './csv.js';
import { startEmbedded } from './embedded.js';
import { exportPeaks, idleRss, type Memory } from './memory.js';
import { benchSubmit, type SubmitRow } from './submit.js';
import { benchSync, type SyncRow } from './sync.js';
import { benchUnderLoad, type LoadFigures, loadRows } from './under-load.js';
import { benchWs, type WsResult } from './ws.js';
import { benchParquetWriters } from './parquet-writers.js';
import { benchFormats } from './formats.js';

/** The WebSocket row: every run's p99 (the goal holds on every run). */
function wsRow(runs: WsResult[]): string {
  const all = runs.every((r) => r.received === r.subscribers && r.p99 < 250);
  const each = runs.map((r) => `${r.received}/${r.subscribers} got it, p50 ${Math.round(r.p50)} ms, p99 ${Math.round(r.p99)} ms`).join('; ');
  return `| WebSocket: 10,000 watchers of one API process, the final event after finished_at (${runs.length} runs) | — | ${each} | | all get it, p99 < 250 ms on every run: ${all ? 'met' : '**not met**'} |`;
}

const load = () => loadavg()[0]!.toFixed(2);
const log = (m: string) => console.error(`[bench] ${m} (load ${load()})`);

const CSV_CASES = [
  { label: '1,000,000 rows, fast source', rows: 1_000_000, delayMs: 0 },
  { label: '500,000 rows, 20 ms a page', rows: 500_000, delayMs: 20 },
];

/**
 * `npm run bench -- csv [--repeat N]`: only the CSV rows, on a fresh embedded start (to work on
 * target 1 without the 15-minute run). BENCH_NODE_ARGS (bench/embedded.ts) profiles it.
 */
export async function benchCsvOnly(repeat: number): Promise<void> {
  const e = await startEmbedded();
  try {
    await new Promise((r) => setTimeout(r, 5_000));
    for (const c of CSV_CASES) console.log(JSON.stringify(await benchCsvCase(e, c, repeat)));
  } finally {
    await e.stop();
  }
}

async function embeddedRuns(repeat: number): Promise<{ csv: CsvResult[]; memory: Memory }> {
  const e = await startEmbedded();
  try {
    const idle = await idleRss(e);
    log(`idle ${idle} MB`);
    const csv: CsvResult[] = [];
    for (const c of CSV_CASES) {
      csv.push(await benchCsvCase(e, c, repeat));
      log(`csv ${c.label}: ${JSON.stringify(csv.at(-1))}`);
    }
    return { csv, memory: { idle, ...(await exportPeaks(e, { csv1g: true, log })) } };
  } finally {
    await e.stop();
  }
}

/** The split worker's own peak for 1 GB and the export's history length: bench/run.ts 1GB (Postgres, dist/app/worker.js). */
function splitWorker(): { peak: number; history: number; seconds: number } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '1GB'], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'], timeout: 900_000 });
  if (r.status !== 0) throw new Error(`bench/run.ts 1GB exited with ${r.status}`);
  const { results } = JSON.parse(readFileSync(join(projectRoot, '.bench', 'results.json'), 'utf8')) as { results: Array<Record<string, number>> };
  const x = results[0]!;
  return { peak: x.workerSampledPeakRssMb!, history: x.historyEvents!, seconds: x.serviceSeconds! };
}

/**
 * Our xlsx writer against rust_xlsxwriter on the same rows (bench/xlsx.ts, each run in its own
 * process, the order alternating), 1M rows, medians of 3: wall and CPU seconds.
 */
function xlsxWriters(): { rust: Times; ours: Times; same: string } {
  execFileSync(process.execPath, ['--import', 'tsx', 'bench/xlsx.ts', '--rows', '1000000', '--only', 'rust,ours', '--repeat', '3'], { cwd: projectRoot, stdio: ['ignore', 'ignore', 'inherit'], timeout: 900_000 });
  const { results, same } = JSON.parse(readFileSync(join(projectRoot, '.bench', 'xlsx.json'), 'utf8')) as { results: Array<{ variant: string; ms: number; cpuMs: number }>; same: string };
  const times = (name: string) => {
    const r = results.find((v) => v.variant === name)!;
    return { wall: Math.round(r.ms / 100) / 10, cpu: Math.round(r.cpuMs / 100) / 10 };
  };
  return { rust: times('rust'), ours: times('ours'), same };
}
type Times = { wall: number; cpu: number };

const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const ok = (met: boolean) => (met ? 'met' : '**not met**');

function table(csv: CsvResult[], sync: SyncRow[], submit: SubmitRow[], loaded: LoadFigures[], m: Memory, split: ReturnType<typeof splitWorker>, xl: ReturnType<typeof xlsxWriters>): string {
  const s1 = sync.find((r) => r.rows === 1000)!;
  const s10 = sync.find((r) => r.rows === 10000)!;
  const find = (prefix: string, callers: number) => submit.find((r) => r.what.startsWith(prefix) && r.callers === callers)!;
  const [raw1, rawN, ours1, oursN] = [find('raw StartWorkflow, the embedded', 1), find('raw StartWorkflow, the embedded', 16), find('POST', 1), find('POST', 16)];
  const rows = [
    '| what | anchor | ours | ratio | target |',
    '| --- | --- | --- | --- | --- |',
    ...csv.map(
      (c) =>
        `| CSV, ${c.label} | 5 pages in flight: ${c.anchor5Seconds} s (sequential: ${c.anchor1Seconds} s) | ${c.serviceSeconds} s${c.sameBytes ? '' : ' (files differ!)'} | ${c.ratio5}x (vs sequential ${c.ratio1}x) | ≤ 1.1x: ${ok(c.ratio5 <= 1.1)} |`,
    ),
    `| sync export, 1,000 rows (${s1.requests} requests) | — | p50 ${s1.p50} ms, p95 ${s1.p95} ms | | p50 < 150, p95 < 300: ${ok(s1.p50 < 150 && s1.p95 < 300)} |`,
    `| sync export, 10,000 rows (${s10.requests} requests) | — | p50 ${s10.p50} ms, p95 ${s10.p95} ms | | p95 < 400: ${ok(s10.p95 < 400)} |`,
    `| one caller submitting, no export running | raw StartWorkflow, same server: p50 ${raw1.p50Ms} ms | p50 ${ours1.p50Ms} ms, p95 ${ours1.p95Ms} ms | ${x(ours1.p50Ms, raw1.p50Ms)} | ≤ 2x: ${ok(ours1.p50Ms <= 2 * raw1.p50Ms)} |`,
    `| 16 callers submitting, no export running | raw StartWorkflow: ${rawN.perSecond}/s, p99 ${rawN.p99Ms} ms | ${oursN.perSecond}/s, p99 ${oursN.p99Ms} ms (every run started ${oursN.lastRunStartedAfterMs} ms after the last answer) | ${x(oursN.perSecond, rawN.perSecond)} | ≥ 0.9x and p99 < 100 ms: ${ok(oursN.perSecond >= 0.9 * rawN.perSecond && oursN.p99Ms < 100)} |`,
    ...loaded.flatMap(loadRows),
    `| memory of the \`npm start\` group (API and worker processes; Temporal server apart), idle | — | ${m.idle} MB | | ≤ 300 MB: ${ok(m.idle <= 300)} |`,
    `| … peak while exporting 1 GB CSV, one file (${m.csv1gSeconds!.toFixed(1)} s) | the 5-in-flight script: ${Math.max(...csv.map((c) => c.anchor5PeakRssMb))} MB | ${m.csv1gPeak} MB (idle + ${m.csv1gPeak! - m.idle}) | | ≤ idle + 150: ${ok(m.csv1gPeak! - m.idle <= 150)} |`,
    `| … peak while exporting a styled 1M-row workbook (${m.xlsxSeconds.toFixed(1)} s) | — | ${m.xlsxPeak} MB (idle + ${m.xlsxPeak - m.idle}) | | ≤ idle + 150: ${ok(m.xlsxPeak - m.idle <= 150)} |`,
    `| worker alone (split mode), peak for 1 GB CSV (${split.seconds.toFixed(1)} s) | — | ${split.peak} MB | | ≤ 250 MB: ${ok(split.peak <= 250)} |`,
    `| xlsx writer, 1M styled rows (medians of 3; ${xl.same ? 'first 20,000 data rows read back equal' : 'not read back'}) | rust_xlsxwriter: ${xl.rust.wall} s (CPU ${xl.rust.cpu} s) | ${xl.ours.wall} s (CPU ${xl.ours.cpu} s) | ${x(xl.ours.wall, xl.rust.wall)} (CPU ${x(xl.ours.cpu, xl.rust.cpu)}) | ≤ 1.0x: ${ok(xl.ours.wall <= xl.rust.wall)} |`,
    `| history of the 1 GB export | — | ${split.history} events | | < 1,000: ${ok(split.history < 1000)} |`,
  ];
  return rows.join('\n');
}

export async function benchIssue13(repeat: number): Promise<void> {
  const started = new Date();
  const loads = [`start ${load()}`];
  log('embedded: idle, CSV against the anchors, 1 GB CSV, styled 1M-row workbook');
  const { csv, memory } = await embeddedRuns(repeat);
  loads.push(`after the embedded runs ${load()}`);
  log('sync exports');
  const sync = await benchSync();
  log('submissions');
  const submit = await benchSubmit();
  loads.push(`after submissions ${load()}`);
  log('under load: embedded, then split');
  const loaded = [await benchUnderLoad('embedded'), await benchUnderLoad('split')];
  loads.push(`after the runs under load ${load()}`);
  log('xlsx writers');
  const xl = xlsxWriters();
  log('split worker, 1 GB');
  const split = splitWorker();
  log('WebSocket: 10,000 watchers of one API process, three runs');
  const ws: WsResult[] = [];
  for (let i = 0; i < 3; i++) ws.push(await benchWs(10_000, 1));
  log('Parquet against DuckDB, and the whole Parquet export against CSV');
  const parquet = `${await benchParquetWriters(1_000_000, undefined, 3)}\n\nWhole export, ${await benchFormats(1_000_000, 3, 'csv,parquet')}`;
  loads.push(`end ${load()}`);
  const body = `${table(csv, sync, submit, loaded, memory, split, xl)}\n${wsRow(ws)}\n\nParquet (bench/parquet-writers.ts, bench/formats.ts, medians of 3 alternating runs):\n\n${parquet}`;
  const cpu = execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim();
  const temporal = execFileSync(resolveTemporalBin(), ['--version']).toString().trim();
  const header = `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')}–${new Date().toISOString().slice(11, 16)} UTC by \`npm run bench\` on ${cpu} (2 cores), Node ${process.version}, ${temporal}; 1-minute load average: ${loads.join(', ')}. Each CSV row is the median of ${repeat} rounds (the sequential anchor, then the 5-in-flight anchor and the service in alternating order).`;
  const block = `${header}\n\n${body}`;
  console.log(block);
  const page = join(projectRoot, 'docs', 'performance.md');
  const text = readFileSync(page, 'utf8');
  const [a, b] = ['<!-- bench:issue13:begin -->', '<!-- bench:issue13:end -->'];
  if (text.includes(a)) writeFileSync(page, `${text.slice(0, text.indexOf(a) + a.length)}\n${block}\n${text.slice(text.indexOf(b))}`);
}
