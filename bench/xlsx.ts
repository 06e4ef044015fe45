// npm run bench:xlsx [-- --rows 1000000 --repeat 3 --only rust,ours]: xlsx writers side by side, each in its own process so
// wall time, CPU time and peak RSS are its own. Results print as a table (and JSON under .bench/).
// The anchor is `rust`: rust_xlsxwriter (PyPI rustpy-xlsxwriter, installed into .tools/ on first use)
// writing the same rows (bench/xlsx-rust.py); when it ran beside `ours`, both files are read back by
// openpyxl and their data rows must be equal (bench/xlsx-same.py).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBenchTools } from '../scripts/test-tools.mjs';
import { median } from './measure.js';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, variant: { type: 'string' }, only: { type: 'string' }, repeat: { type: 'string', default: '1' } } });
const rows = Number(values.rows);
const dir = join(process.cwd(), '.bench', 'xlsx');

const VARIANTS: Record<string, string> = {
  rust: 'rust_xlsxwriter (rustpy-xlsxwriter, constant memory, zlib level 6), same rows, a format per column (the anchor)',
  idle: 'node + tsx + the modules loaded, nothing written (the RSS floor)',
  minimal: 'minimal streaming XML+zip writer: no styles, inline strings (the yardstick)',
  ours: 'our writer, styled template, one file (no size split)',
  'ours-split': 'our writer, styled template, default split (10 MB parts)',
  'minimal-staged': 'the minimal writer fed from staged .ndjson pages (read + JSON.parse)',
  'ours-staged': 'our writer fed from staged .ndjson pages (read + JSON.parse), default split: the render activity',
  'ours-sheets-staged': 'the same rows as five sheets of a fifth each, each from its own staged pages, default split',
  exceljs: 'exceljs streaming WorkbookWriter, same styles, waiting on its queue (tuned)',
};

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function child(variant: string): Promise<void> {
  const v = await import('./xlsx-variants.js');
  const out = join(dir, `${variant}.xlsx`);
  let bytes = 0;
  let t0 = performance.now();
  let cpu0 = cpuNow();
  if (variant === 'minimal') bytes = await v.minimal(rows, out);
  else if (variant === 'ours') bytes = await v.ours(rows, out, Number.MAX_SAFE_INTEGER);
  else if (variant === 'ours-split') bytes = await v.ours(rows, out, 10 * 1024 * 1024);
  else if (variant === 'ours-sheets-staged') {
    const dirs = Array.from({ length: 5 }, (_, i) => join(dir, `pages-${variant}-${i}`));
    const per = Math.ceil(rows / 5);
    for (const [i, d] of dirs.entries()) await v.stage(Math.min(per, rows - i * per), d, i * per);
    [t0, cpu0] = [performance.now(), cpuNow()];
    bytes = await v.oursSheets(dirs.map((d) => v.stagedPages(d)), out, 10 * 1024 * 1024);
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  } else if (variant.endsWith('-staged')) {
    const pages = join(dir, `pages-${variant}`);
    await v.stage(rows, pages);
    [t0, cpu0] = [performance.now(), cpuNow()];
    if (variant === 'minimal-staged') bytes = await v.minimal(rows, out, v.stagedPages(pages));
    else bytes = await v.ours(rows, out, 10 * 1024 * 1024, v.stagedPages(pages));
    await rm(pages, { recursive: true, force: true });
  } else if (variant === 'exceljs') bytes = await v.exceljs(rows, out, true);
  const ms = performance.now() - t0;
  const cpuMs = cpuNow() - cpu0;
  process.stdout.write(JSON.stringify({ variant, ms, cpuMs, rssMB: process.resourceUsage().maxRSS / 1024, bytes }) + '\n');
}

/** Wall and CPU (user + system, every thread of the process: zlib's too) over the same span. */
type Result = { variant: string; ms: number; cpuMs: number; rssMB: number; bytes: number };

const rustDir = join(process.cwd(), '.tools', 'rust-xlsxwriter');
const pyreaders = join(process.cwd(), '.tools', 'pyreaders');

function once(variant: string): Result {
  const r =
    variant === 'rust'
      ? spawnSync('python3', ['bench/xlsx-rust.py', String(rows), join(dir, 'rust.xlsx')], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: rustDir } })
      : spawnSync(process.execPath, ['--import', 'tsx', 'bench/xlsx.ts', '--variant', variant, '--rows', String(rows)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${variant} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Result;
}

/** openpyxl reads both files; their first `limit` data rows must be equal (bench/xlsx-same.py). */
function sameRows(a: string, b: string, limit: number): string {
  const r = spawnSync('python3', ['bench/xlsx-same.py', a, b, String(limit)], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: pyreaders } });
  if (r.status !== 0) throw new Error(`the anchor's file and ours differ: ${r.stdout}${r.stderr}`);
  return r.stdout.trim();
}

/** Runs are interleaved (a, b, c, a, b, c …) so a busy moment on the machine hits all of them. */
function parent(): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const list = values.only ? values.only.split(',') : Object.keys(VARIANTS);
  if (list.includes('rust')) ensureBenchTools();
  const runs = new Map<string, Result[]>(list.map((v) => [v, []]));
  // Each round reverses the order of the one before (a b, b a, …): neither always runs first.
  for (let i = 0; i < Number(values.repeat); i++) for (const v of i % 2 ? [...list].reverse() : list) runs.get(v)!.push(once(v));
  const results = list.map((v) => {
    const rs = runs.get(v)!;
    return {
      variant: v,
      ms: median(rs.map((r) => r.ms)),
      cpuMs: median(rs.map((r) => r.cpuMs)),
      rssMB: Math.max(...rs.map((r) => r.rssMB)),
      bytes: rs[0]!.bytes,
      runs: rs.map((r) => Math.round(r.ms)),
      cpuRuns: rs.map((r) => Math.round(r.cpuMs)),
    };
  });
  console.log(`${rows} rows x 10 columns, ${values.repeat} run(s) each: median wall and CPU time, highest peak RSS`);
  for (const res of results) {
    const [wall, cpu] = [(res.ms / 1000).toFixed(1).padStart(6), (res.cpuMs / 1000).toFixed(1).padStart(6)];
    console.log(`${res.variant.padEnd(12)} ${wall} s wall ${cpu} s CPU ${res.rssMB.toFixed(0).padStart(5)} MB peak RSS  ${(res.bytes / 1e6).toFixed(1).padStart(7)} MB out   ${VARIANTS[res.variant]}`);
  }
  for (const name of ['rust', 'minimal']) {
    const base = results.find((r) => r.variant === name);
    if (base) for (const r of results) if (r !== base && r.variant !== 'idle') console.log(`${r.variant.padEnd(12)} ${(r.ms / base.ms).toFixed(2)}x ${name}'s wall time, ${(r.cpuMs / base.cpuMs).toFixed(2)}x its CPU time`);
  }
  let same: string | undefined;
  if (list.includes('rust') && list.includes('ours')) console.log((same = sameRows(join(dir, 'rust.xlsx'), join(dir, 'ours.xlsx.part1.xlsx'), Math.min(rows, 20_000))));
  writeFileSync(join(process.cwd(), '.bench', 'xlsx.json'), JSON.stringify({ rows, at: new Date().toISOString(), results, same }, null, 2));
  rmSync(dir, { recursive: true, force: true });
}

if (values.variant) await child(values.variant);
else parent();
