// npm run bench:xlsx [-- --rows 1000000 --repeat 3 --only minimal,ours]: xlsx writers side by side, each in its own process so
// wall time and peak RSS are its own. Results print as a table (and JSON under .bench/).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, variant: { type: 'string' }, only: { type: 'string' }, repeat: { type: 'string', default: '1' } } });
const rows = Number(values.rows);
const dir = join(process.cwd(), '.bench', 'xlsx');

const VARIANTS: Record<string, string> = {
  idle: 'node + tsx + the modules loaded, nothing written (the RSS floor)',
  minimal: 'minimal streaming XML+zip writer: no styles, inline strings (the yardstick)',
  ours: 'our writer, styled template, one file (no size split)',
  'ours-split': 'our writer, styled template, default split (10 MB parts)',
  'minimal-staged': 'the minimal writer fed from staged .ndjson pages (read + JSON.parse)',
  'ours-staged': 'our writer fed from staged .ndjson pages (read + JSON.parse), default split: the render activity',
  'ours-sheets-staged': 'the same rows as five sheets of a fifth each, each from its own staged pages, default split',
  exceljs: 'exceljs streaming WorkbookWriter, same styles, waiting on its queue (tuned)',
};

async function child(variant: string): Promise<void> {
  const v = await import('./xlsx-variants.js');
  const out = join(dir, `${variant}.xlsx`);
  let bytes = 0;
  let t0 = performance.now();
  if (variant === 'minimal') bytes = await v.minimal(rows, out);
  else if (variant === 'ours') bytes = await v.ours(rows, out, Number.MAX_SAFE_INTEGER);
  else if (variant === 'ours-split') bytes = await v.ours(rows, out, 10 * 1024 * 1024);
  else if (variant === 'ours-sheets-staged') {
    const dirs = Array.from({ length: 5 }, (_, i) => join(dir, `pages-${variant}-${i}`));
    const per = Math.ceil(rows / 5);
    for (const [i, d] of dirs.entries()) await v.stage(Math.min(per, rows - i * per), d, i * per);
    t0 = performance.now();
    bytes = await v.oursSheets(dirs.map((d) => v.stagedPages(d)), out, 10 * 1024 * 1024);
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  } else if (variant.endsWith('-staged')) {
    const pages = join(dir, `pages-${variant}`);
    await v.stage(rows, pages);
    t0 = performance.now();
    if (variant === 'minimal-staged') bytes = await v.minimal(rows, out, v.stagedPages(pages));
    else bytes = await v.ours(rows, out, 10 * 1024 * 1024, v.stagedPages(pages));
    await rm(pages, { recursive: true, force: true });
  } else if (variant === 'exceljs') bytes = await v.exceljs(rows, out, true);
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ variant, ms, rssMB: process.resourceUsage().maxRSS / 1024, bytes }) + '\n');
}

type Result = { variant: string; ms: number; rssMB: number; bytes: number };

function once(variant: string): Result {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/xlsx.ts', '--variant', variant, '--rows', String(rows)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${variant} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Result;
}

/** Runs are interleaved (a, b, c, a, b, c …) so a busy moment on the machine hits all of them. */
function parent(): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const list = values.only ? values.only.split(',') : Object.keys(VARIANTS);
  const runs = new Map<string, Result[]>(list.map((v) => [v, []]));
  for (let i = 0; i < Number(values.repeat); i++) for (const v of list) runs.get(v)!.push(once(v));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const results = list.map((v) => {
    const rs = runs.get(v)!;
    return { variant: v, ms: median(rs.map((r) => r.ms)), rssMB: Math.max(...rs.map((r) => r.rssMB)), bytes: rs[0]!.bytes, runs: rs.map((r) => Math.round(r.ms)) };
  });
  console.log(`${rows} rows x 10 columns, ${values.repeat} run(s) each: median wall time, highest peak RSS`);
  for (const res of results) {
    console.log(`${res.variant.padEnd(12)} ${(res.ms / 1000).toFixed(1).padStart(6)} s  ${res.rssMB.toFixed(0).padStart(5)} MB peak RSS  ${(res.bytes / 1e6).toFixed(1).padStart(7)} MB out   ${VARIANTS[res.variant]}`);
  }
  const base = results.find((r) => r.variant === 'minimal');
  if (base) for (const r of results) if (r.variant !== 'idle') console.log(`${r.variant.padEnd(12)} ${(r.ms / base.ms).toFixed(2)}x the minimal writer's time`);
  writeFileSync(join(process.cwd(), '.bench', 'xlsx.json'), JSON.stringify({ rows, at: new Date().toISOString(), results }, null, 2));
  rmSync(dir, { recursive: true, force: true });
}

if (values.variant) await child(values.variant);
else parent();
