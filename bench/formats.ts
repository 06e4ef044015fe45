// `npm run bench -- formats [--rows N] [--repeat N] [--only TYPE]`: one source (bench/source.ts) exported through
// the embedded start (`npm start`: API, worker, PGlite) as csv, jsonl, parquet, and csv / jsonl
// compressed; medians over the runs, alternating the order, with the process's peak RSS. What the
// types share (fetching, Temporal, storing) costs the same; the differences are each type's
// encoding of a page and its render.
import { BENCH_ADMIN, startEmbedded, startSource } from './embedded.js';
import { PAGE_SIZE, runExport, type ServiceRun } from './csv.js';

const CASES: Array<{ label: string; body: Record<string, unknown> }> = [
  { label: 'csv', body: { type: 'csv' } },
  { label: 'jsonl', body: { type: 'jsonl' } },
  { label: 'parquet', body: { type: 'parquet' } },
  { label: 'csv + gzip', body: { type: 'csv', compression: 'gzip' } },
  { label: 'jsonl + zstd', body: { type: 'jsonl', compression: 'zstd' } },
];

export async function benchFormats(rows: number, repeat: number, only?: string): Promise<string> {
  // --only parquet: that type alone (its memory over a long export, say); "vs csv" is then NaN.
  // --only csv,parquet: those types (plain, uncompressed), as the Parquet bench runs them.
  const types = only?.split(',');
  const cases = types ? CASES.filter((c) => types.includes(c.body.type as string) && (types.length === 1 || !c.body.compression)) : CASES;
  if (cases.length === 0) throw new Error(`--only: no such type (${CASES.map((c) => c.body.type).join(', ')})`);
  const e = await startEmbedded();
  const source = await startSource();
  try {
    const project = (await e.call('POST', '/v1/projects', BENCH_ADMIN, { name: 'formats', source_hosts: [source.host], retention_hours: 1 })).body;
    const url = `${source.url}?total=${rows}`;
    // Warm-up (not counted): the first export of a fresh start runs cold (JIT, caches, the source).
    for (const c of cases) await runExport(e, project.api_key, { source_url: `${source.url}?total=50000`, page_size: PAGE_SIZE, ...c.body });
    const runs = new Map<string, ServiceRun[]>(cases.map((c) => [c.label, []]));
    for (let i = 0; i < repeat; i++) {
      const order = i % 2 === 0 ? cases : [...cases].reverse();
      for (const c of order) {
        const r = await runExport(e, project.api_key, { source_url: url, page_size: PAGE_SIZE, file_name: `bench-${i}`, ...c.body });
        runs.get(c.label)!.push(r);
        console.error(`[bench] formats ${c.label} run ${i + 1}: ${r.ms} ms, ${r.cpuSeconds.toFixed(2)} CPU s, peak ${r.peakRssMb} MB`);
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const csvMs = runs.has('csv') ? med(runs.get('csv')!.map((r) => r.ms)) : NaN;
    const csvCpu = runs.has('csv') ? med(runs.get('csv')!.map((r) => r.cpuSeconds)) : NaN;
    // CPU seconds of the service's process too: on a shared machine they move less than the wall clock.
    const lines = ['| type | seconds | vs csv | CPU s | CPU vs csv | peak RSS (MB) | file (MB) |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: |'];
    for (const c of cases) {
      const rs = runs.get(c.label)!;
      const ms = med(rs.map((r) => r.ms));
      const bytes = rs[0]!.files.reduce((s, f) => s + f.bytes, 0);
      const cpu = med(rs.map((r) => r.cpuSeconds));
      lines.push(`| ${c.label} | ${(ms / 1000).toFixed(1)} | ${(ms / csvMs).toFixed(2)} | ${cpu.toFixed(1)} | ${(cpu / csvCpu).toFixed(2)} | ${Math.max(...rs.map((r) => r.peakRssMb))} | ${(bytes / 1e6).toFixed(1)} |`);
    }
    return `${rows.toLocaleString('en')} rows through the embedded start, median of ${repeat} (bench/formats.ts)\n\n${lines.join('\n')}`;
  } finally {
    source.stop();
    await e.stop();
  }
}
