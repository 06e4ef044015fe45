// `npm run bench -- encode`: a page's encoding alone, CSV's transcoder beside JSON Lines', on the
// benchmark source's pages (bench/rows.ts, 1,000 a page), 1,000,000 rows, alternating;
// the part of an export's CPU that differs between the two types besides the bytes written.
import { rowColumns } from '../domain/formats/columns.js';
import { transcoderFor } from '../domain/formats/csv/transcode.js';
import { jsonlTranscoderFor } from '../domain/formats/jsonl-transcode.js';
import { rowJson } from './rows.js';

export function benchEncode(rows = 1_000_000): string {
  const pages = Array.from({ length: 50 }, (_, p) => Buffer.from(`{"total":${rows},"data":[${Array.from({ length: 1000 }, (_, k) => rowJson(p * 1000 + k)).join(',')}]}`));
  const columns = rowColumns(JSON.parse(rowJson(0)));
  const csv = transcoderFor(columns);
  const jsonl = jsonlTranscoderFor(columns);
  const time = (f: (b: Buffer) => { rows: number } | null) => {
    const t0 = performance.now();
    let bytes = 0;
    for (let n = 0; n < rows / 1000; n++) {
      const out = f(pages[n % pages.length]!) as { csv?: Buffer; lines?: Buffer } | null;
      if (!out) throw new Error('a benchmark page left the fast path');
      bytes += (out.csv ?? out.lines)!.length;
    }
    return { ms: performance.now() - t0, bytes };
  };
  const runs: Record<'csv' | 'jsonl', number[]> = { csv: [], jsonl: [] };
  let sizes = { csv: 0, jsonl: 0 };
  for (let i = 0; i < 6; i++) {
    const order = i % 2 === 0 ? (['csv', 'jsonl'] as const) : (['jsonl', 'csv'] as const);
    for (const t of order) {
      const r = time((b) => (t === 'csv' ? csv.transcode(b) : jsonl.transcode(b)));
      if (i > 0) runs[t].push(r.ms); // the first pair warms up
      sizes = { ...sizes, [t]: r.bytes };
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const c = med(runs.csv);
  const j = med(runs.jsonl);
  return [
    `Page encoding, ${rows.toLocaleString('en')} rows, median of 5 (bench/encode-formats.ts)`,
    '',
    '| type | ms | rows/s | MB out |',
    '| --- | ---: | ---: | ---: |',
    `| csv | ${c.toFixed(0)} | ${Math.round(rows / (c / 1000)).toLocaleString('en')} | ${(sizes.csv / 1e6).toFixed(1)} |`,
    `| jsonl | ${j.toFixed(0)} | ${Math.round(rows / (j / 1000)).toLocaleString('en')} | ${(sizes.jsonl / 1e6).toFixed(1)} |`,
    '',
    `jsonl / csv time: ${(j / c).toFixed(2)}`,
  ].join('\n');
}
