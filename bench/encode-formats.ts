// `npm run bench -- encode`: a page's encoding alone, CSV's transcoder beside JSON Lines' and a
// Parquet export's staged values' (ADR 0056; until then a Parquet export staged JSON lines, as
// JSON Lines does), on the benchmark source's pages (bench/rows.ts, 1,000 a page), 1,000,000 rows,
// alternating; the part of an export's CPU that differs between the types besides the bytes written.
import { rowColumns } from '../domain/formats/columns.js';
import { transcoderFor } from '../domain/formats/csv/transcode.js';
import { jsonlTranscoderFor } from '../domain/formats/jsonl-transcode.js';
import { valuesTranscoderFor } from '../domain/formats/parquet/transcode.js';
import { rowJson } from './rows.js';

const TYPES = ['csv', 'jsonl', 'parquet'] as const;
type Type = (typeof TYPES)[number];

export function benchEncode(rows = 1_000_000): string {
  const pages = Array.from({ length: 50 }, (_, p) => Buffer.from(`{"total":${rows},"data":[${Array.from({ length: 1000 }, (_, k) => rowJson(p * 1000 + k)).join(',')}]}`));
  const columns = rowColumns(JSON.parse(rowJson(0)));
  const csv = transcoderFor(columns);
  const jsonl = jsonlTranscoderFor(columns);
  const values = valuesTranscoderFor(columns);
  const encode: Record<Type, (b: Buffer) => Buffer | undefined> = {
    csv: (b) => csv.transcode(b)?.csv,
    jsonl: (b) => jsonl.transcode(b)?.lines,
    parquet: (b) => values.transcode(b)?.values,
  };
  const time = (f: (b: Buffer) => Buffer | undefined) => {
    const t0 = performance.now();
    let bytes = 0;
    for (let n = 0; n < rows / 1000; n++) {
      const out = f(pages[n % pages.length]!);
      if (!out) throw new Error('a benchmark page left the fast path');
      bytes += out.length;
    }
    return { ms: performance.now() - t0, bytes };
  };
  const runs: Record<Type, number[]> = { csv: [], jsonl: [], parquet: [] };
  const sizes: Record<Type, number> = { csv: 0, jsonl: 0, parquet: 0 };
  for (let i = 0; i < 6; i++) {
    for (const t of i % 2 === 0 ? TYPES : [...TYPES].reverse()) {
      const r = time(encode[t]);
      if (i > 0) runs[t].push(r.ms); // the first round warms up
      sizes[t] = r.bytes;
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ms = Object.fromEntries(TYPES.map((t) => [t, med(runs[t])])) as Record<Type, number>;
  return [
    `Page encoding, ${rows.toLocaleString('en')} rows, median of 5 (bench/encode-formats.ts; parquet: the staged values)`,
    '',
    '| type | ms | rows/s | MB out |',
    '| --- | ---: | ---: | ---: |',
    ...TYPES.map((t) => `| ${t} | ${ms[t].toFixed(0)} | ${Math.round(rows / (ms[t] / 1000)).toLocaleString('en')} | ${(sizes[t] / 1e6).toFixed(1)} |`),
    '',
    `jsonl / csv time: ${(ms.jsonl / ms.csv).toFixed(2)}; parquet's staged values / jsonl: ${(ms.parquet / ms.jsonl).toFixed(2)}`,
  ].join('\n');
}
