// `npm run bench -- csv-dialects`: the CSV encoders in every dialect (csv_delimiter, csv_line_ending)
// and with a time_zone, on the benchmark source's pages (bench/rows.ts: 1,000 rows a page, seven
// columns, one of them a date-time in UTC), 1,000,000 rows a run, median of 5 after a warm-up, the
// variants' order rotated each round. The byte transcoder is what a plain page goes through; the
// ordinary encoder (encodeCsvRows, rows already parsed) is what any other page goes through.
import { rowColumns } from '../domain/formats/columns.js';
import { type CsvStyle, encodeCsvRows } from '../domain/formats/csv/encode.js';
import { transcoderFor } from '../domain/formats/csv/transcode.js';
import { rowJson } from './rows.js';

interface Variant {
  name: string;
  style: CsvStyle;
  path: 'bytes' | 'ordinary';
}

const VARIANTS: Variant[] = [
  { name: ', CR LF (default)', style: {}, path: 'bytes' },
  { name: '; LF', style: { delimiter: ';', lineEnding: 'lf' }, path: 'bytes' },
  { name: 'tab CR LF (.tsv)', style: { delimiter: '\t' }, path: 'bytes' },
  { name: '| CR LF', style: { delimiter: '|' }, path: 'bytes' },
  { name: ', CR LF, time_zone Asia/Shanghai', style: { timeZone: 'Asia/Shanghai' }, path: 'bytes' },
  { name: ', CR LF, time_zone America/New_York', style: { timeZone: 'America/New_York' }, path: 'bytes' },
  { name: ', CR LF (default)', style: {}, path: 'ordinary' },
  { name: '; LF', style: { delimiter: ';', lineEnding: 'lf' }, path: 'ordinary' },
  { name: ', CR LF, time_zone Asia/Shanghai', style: { timeZone: 'Asia/Shanghai' }, path: 'ordinary' },
];

export function benchCsvDialects(rows = 1_000_000): string {
  const texts = Array.from({ length: 50 }, (_, p) => `{"total":${rows},"data":[${Array.from({ length: 1000 }, (_, k) => rowJson(p * 1000 + k)).join(',')}]}`);
  const pages = texts.map((t) => Buffer.from(t));
  const parsed = texts.map((t) => (JSON.parse(t) as { data: unknown[] }).data);
  const columns = rowColumns(parsed[0]![0]);
  const run = (v: Variant) => {
    const t0 = performance.now();
    let bytes = 0;
    const transcoder = transcoderFor(columns, v.style);
    for (let n = 0; n < rows / 1000; n++) {
      if (v.path === 'ordinary') bytes += encodeCsvRows(parsed[n % parsed.length]!, columns, v.style).length;
      else {
        const out = transcoder.transcode(pages[n % pages.length]!);
        if (!out) throw new Error('a benchmark page left the fast path');
        bytes += out.csv.length;
      }
    }
    return { ms: performance.now() - t0, bytes };
  };
  const times = VARIANTS.map(() => [] as number[]);
  const sizes = VARIANTS.map(() => 0);
  for (let round = 0; round < 6; round++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const i = (k + round) % VARIANTS.length;
      const r = run(VARIANTS[i]!);
      if (round > 0) times[i]!.push(r.ms); // the first round warms up
      sizes[i] = r.bytes;
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = { bytes: med(times[0]!), ordinary: med(times[6]!) };
  return [
    `CSV encoding by dialect, ${rows.toLocaleString('en')} rows, median of 5 (bench/csv-dialects.ts)`,
    '',
    '| encoder | dialect | ms | rows/s | MB out | vs default |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...VARIANTS.map((v, i) => {
      const ms = med(times[i]!);
      const vs = ms / (v.path === 'bytes' ? base.bytes : base.ordinary);
      return `| ${v.path === 'bytes' ? 'byte transcoder' : 'encodeCsvRows'} | ${v.name} | ${ms.toFixed(0)} | ${Math.round(rows / (ms / 1000)).toLocaleString('en')} | ${(sizes[i]! / 1e6).toFixed(1)} | ${vs.toFixed(2)}x |`;
    }),
  ].join('\n');
}
