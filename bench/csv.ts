// Issue 13, targets 1 and 4: CSV exports through the embedded start (`npm start`), each beside the
// hand-written anchor (bench/bare.ts) fetching the same pages with 1 and with 5 pages in flight,
// and the memory of the `npm start` process (API, worker, PGlite) sampled every 250 ms.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_ADMIN, type Embedded, type Source, startSource } from './embedded.js';
import { spawnNode, treeCpuSeconds } from './measure.js';

export const PAGE_SIZE = 1000;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

export interface AnchorRun {
  ms: number;
  sha256: string;
  maxRssMb: number;
  cpuSeconds: number;
}

export async function runAnchor(url: string, inFlight: number, dir: string): Promise<AnchorRun> {
  const out = join(dir, `anchor-${inFlight}.csv`);
  const p = spawnNode(['bench/bare.ts', url, String(PAGE_SIZE), out, String(inFlight)], {});
  await p.exited;
  rmSync(out, { force: true });
  return JSON.parse(p.out().trim().split('\n').at(-1)!) as AnchorRun;
}

/** One RSS sampler for every memory figure: /proc's VmRSS every 250 ms, and the highest seen. */
export function sampleRss(e: Pick<Embedded, 'rss'>): { stop: () => { peak: number; samples: number } } {
  let peak = 0;
  let samples = 0;
  const tick = () => {
    peak = Math.max(peak, e.rss().rss);
    samples += 1;
  };
  tick();
  const timer = setInterval(tick, 250);
  return { stop: () => (clearInterval(timer), tick(), { peak: Math.round(peak), samples }) };
}

export interface ServiceRun {
  ms: number;
  files: Array<{ bytes: number; sha256: string }>;
  peakRssMb: number;
  taskId: string;
  cpuSeconds: number;
}

/** Submits through POST /v1/tasks; the time runs to the task's own finished_at. */
export async function runExport(e: Embedded, apiKey: string, body: Record<string, unknown>): Promise<ServiceRun> {
  const sampler = sampleRss(e);
  const cpu0 = treeCpuSeconds(e.pids());
  const t0 = Date.now();
  const sub = await e.call('POST', '/v1/tasks', apiKey, { operator_id: 'bench', page_size: PAGE_SIZE, ...body });
  if (sub.status !== 201 && sub.status !== 202) throw new Error(`submit: ${sub.status} ${JSON.stringify(sub.body)}`);
  // The workflow's result arrives by long poll the moment it completes: no polling of our API (whose
  // queries would run on the process measured), no polling interval in the figure.
  await e.workflowResult(sub.body.task_id);
  const { peak } = sampler.stop();
  const task = (await e.call('GET', `/v1/tasks/${sub.body.task_id}`, apiKey)).body;
  if (task.status !== 'succeeded') throw new Error(`export ${task.status}: ${JSON.stringify(task.error)}`);
  return { ms: Date.parse(task.finished_at) - t0, files: task.files, peakRssMb: peak, taskId: task.task_id, cpuSeconds: treeCpuSeconds(e.pids()) - cpu0 };
}

export interface CsvCase {
  label: string;
  rows: number;
  delayMs: number;
}

export interface CsvResult extends CsvCase {
  serviceSeconds: number;
  anchor5Seconds: number;
  anchor1Seconds: number;
  ratio5: number;
  ratio1: number;
  sameBytes: boolean;
  servicePeakRssMb: number;
  anchor5PeakRssMb: number;
}

/** One case: anchor (1 and 5 in flight) and the service, alternating who goes first over `repeat` runs. */
export async function benchCsvCase(e: Embedded, c: CsvCase, repeat: number): Promise<CsvResult> {
  const source: Source = await startSource({ delayMs: c.delayMs });
  try {
    const project = (await e.call('POST', '/v1/projects', BENCH_ADMIN, { name: `csv-${c.label}`, source_hosts: [source.host], retention_hours: 1 })).body;
    const url = `${source.url}?total=${c.rows}`;
    for (let p = 0; p < 100; p++) await (await fetch(`${source.url}?total=100000&page=${p}&page_size=${PAGE_SIZE}`)).arrayBuffer();
    const runs: Array<{ s: ServiceRun; a5: AnchorRun; a1: AnchorRun }> = [];
    for (let i = 0; i < repeat; i++) {
      const service = () => runExport(e, project.api_key, { source_url: url, file_name: `bench-${c.label}-${i}` });
      // The sequential anchor first, then the pair compared, in alternating order: each of the two
      // runs as often right after the long sequential run (this VM runs slower after one) as the other.
      const a1 = await runAnchor(url, 1, e.dataDir);
      if (i % 2 === 0) {
        const a5 = await runAnchor(url, 5, e.dataDir);
        runs.push({ s: await service(), a5, a1 });
      } else {
        const s = await service();
        runs.push({ s, a5: await runAnchor(url, 5, e.dataDir), a1 });
      }
      console.error(`[bench] csv ${c.label} run ${i + 1}: service ${runs.at(-1)!.s.ms} ms, anchor5 ${runs.at(-1)!.a5.ms} ms, anchor1 ${runs.at(-1)!.a1.ms} ms`);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const s = med(runs.map((r) => r.s.ms));
    const a5 = med(runs.map((r) => r.a5.ms));
    const a1 = med(runs.map((r) => r.a1.ms));
    return {
      ...c,
      serviceSeconds: round(s / 1000),
      anchor5Seconds: round(a5 / 1000),
      anchor1Seconds: round(a1 / 1000),
      ratio5: round(s / a5),
      ratio1: round(s / a1),
      sameBytes: runs.every((r) => r.s.files.length === 1 && r.s.files[0]!.sha256 === r.a5.sha256 && r.a5.sha256 === r.a1.sha256),
      servicePeakRssMb: Math.max(...runs.map((r) => r.s.peakRssMb)),
      anchor5PeakRssMb: Math.max(...runs.map((r) => r.a5.maxRssMb)),
    };
  } finally {
    source.stop();
  }
}
