// Issue 13, target 4 on the embedded start (`npm start`): idle memory, and the peak while exporting
// 1 GB of CSV and a styled 1M-row workbook, all with one sampler (bench/csv.ts sampleRss). Part of
// `npm run bench` (bench/issue13.ts); `npm run bench -- memory` runs idle and the workbook alone,
// `npm run bench -- memory 1GB` the 1 GB CSV too.
import { readFileSync } from 'node:fs';
import { MAX_FILE_BYTES } from '../model/project-settings.js';
import { runExport, type ServiceRun, sampleRss } from './csv.js';
import { BENCH_ADMIN, type Embedded, startEmbedded, startSource } from './embedded.js';
import { pssMb, rssMb } from './measure.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const ROWS_PER_GB = 14_860_608;

// The generator's seven columns, styled: types, a condition style, a title (bench/source.ts).
export const STYLED = {
  title: 'Bench orders',
  template: [
    { name: 'id', title: '编号', type: 'integer' },
    { name: 'order_no', title: '订单号', type: 'string' },
    { name: 'customer', title: '客户', align: 'left' },
    { name: 'amount', title: '金额', type: 'money', condition_style: [{ condition: '>= 900', color: 'red', bold: true }] },
    { name: 'status', title: '状态', condition_style: [{ condition: "in ('refunded')", bg_color: 'yellow' }] },
    { name: 'created_at', title: '创建时间' },
    { name: 'remark', title: '备注', align: 'left' },
  ],
};

export interface Memory {
  idle: number;
  csv1gPeak?: number | undefined;
  csv1gSeconds?: number | undefined;
  xlsxPeak: number;
  xlsxSeconds: number;
}

/** Idle: after the start has settled, the sampler's highest value over 5 s. */
export async function idleRss(e: Embedded): Promise<number> {
  await sleep(10_000);
  const sampler = sampleRss(e);
  await sleep(5_000);
  return sampler.stop().peak;
}

/**
 * Beside the idle figure (which stays the VmRSS sum): each process's VmRSS and PSS, and the group's
 * PSS, read once at the end of the idle window. PSS counts a file page shared by the two processes
 * (the node binary, the Temporal core bridge) once for the group instead of once per process.
 */
export function idleBreakdown(e: Embedded): { pss: number; processes: Array<{ pid: number; name: string; rss: number; pss: number }> } {
  const processes = e.pids().map((pid) => {
    let name = '?';
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      name = pid === e.pid ? 'API' : cmd.some((a) => a.endsWith('worker.js')) ? 'worker' : (cmd[0]?.split('/').at(-1) ?? '?');
    } catch {
      // gone meanwhile
    }
    let rss = 0;
    try {
      rss = rssMb(pid).rss;
    } catch {
      // gone meanwhile
    }
    return { pid, name, rss: Math.round(rss), pss: Math.round(pssMb(pid)) };
  });
  return { pss: processes.reduce((s, p) => s + p.pss, 0), processes };
}

/** The 1 GB CSV (when asked) and the styled 1M-row workbook, one after the other on `e`. */
export async function exportPeaks(e: Embedded, opts: { csv1g: boolean; log: (m: string) => void }): Promise<Omit<Memory, 'idle'>> {
  const source = await startSource();
  try {
    const project = (await e.call('POST', '/v1/projects', BENCH_ADMIN, { name: 'memory', source_hosts: [source.host], retention_hours: 1 })).body;
    let gb: ServiceRun | undefined;
    if (opts.csv1g) {
      // One file, as the anchor writes (by default a CSV export is split at 512 MiB into parts and a zip).
      gb = await runExport(e, project.api_key, { source_url: `${source.url}?total=${ROWS_PER_GB}`, file_name: 'bench-1gb', max_file_bytes: MAX_FILE_BYTES });
      opts.log(`1 GB CSV: ${gb.ms} ms, ${gb.cpuSeconds.toFixed(1)} CPU s (API and worker processes), peak ${gb.peakRssMb} MB`);
      await sleep(3_000);
    }
    const xlsx = await runExport(e, project.api_key, { source_url: `${source.url}?total=1000000`, type: 'xlsx', file_name: 'bench-styled', ...STYLED });
    opts.log(`1M-row styled xlsx: ${xlsx.ms} ms, ${xlsx.cpuSeconds.toFixed(1)} CPU s (API and worker processes), peak ${xlsx.peakRssMb} MB`);
    return { csv1gPeak: gb?.peakRssMb, csv1gSeconds: gb && gb.ms / 1000, xlsxPeak: xlsx.peakRssMb, xlsxSeconds: xlsx.ms / 1000 };
  } finally {
    source.stop();
  }
}

/** `npm run bench -- memory [1GB]`: a fresh embedded start, its idle, then the export peaks. */
export async function benchMemory(csv1g: boolean): Promise<string> {
  const log = (m: string) => console.error(`[bench] ${m}`);
  const e = await startEmbedded();
  try {
    const idle = await idleRss(e);
    const parts = idleBreakdown(e);
    const each = parts.processes.map((p) => `${p.name} ${p.rss} / ${p.pss}`).join(', ');
    log(`idle ${idle} MB (VmRSS sum); PSS sum ${parts.pss} MB; VmRSS / PSS by process: ${each}`);
    const m: Memory = { idle, ...(await exportPeaks(e, { csv1g, log })) };
    const rows = [
      '| `npm start` | MB | target |',
      '| --- | --- | --- |',
      `| idle (VmRSS sum) | ${m.idle} | ≤ 300 |`,
      `| idle, PSS sum (beside it; VmRSS / PSS by process: ${each}) | ${parts.pss} | |`,
      ...(m.csv1gPeak === undefined ? [] : [`| peak, 1 GB CSV (${m.csv1gSeconds!.toFixed(1)} s) | ${m.csv1gPeak} (idle + ${m.csv1gPeak - idle}) | ≤ idle + 150 |`]),
      `| peak, styled 1M-row workbook (${m.xlsxSeconds.toFixed(1)} s) | ${m.xlsxPeak} (idle + ${m.xlsxPeak - idle}) | ≤ idle + 150 |`,
    ];
    return rows.join('\n');
  } finally {
    await e.stop();
  }
}
