// `npm run bench -- encode-masked`: a CSV page's encoding with masked columns beside the same page
// unmasked (docs/performance.md#masked-columns). A masked page leaves the byte transcoder for the
// ordinary path (parse, mask, encode; docs/adr/0044-masked-columns.md); this measures what that
// costs on the benchmark's orders (bench/rows.ts, 1,000 a page), alternating, median of 5.
import { randomBytes } from 'node:crypto';
import { rowColumns } from '../domain/formats/columns.js';
import type { MaskJob } from '../domain/formats/mask/rows.js';
import encodePage from '../domain/staging/page-encoder.worker.js';
import { rowJson } from './rows.js';

export function benchEncodeMasked(rows = 200_000): string {
  const pages = Array.from({ length: 20 }, (_, p) => Buffer.from(`{"total":${rows},"data":[${Array.from({ length: 1000 }, (_, k) => rowJson(p * 1000 + k)).join(',')}]}`));
  const columns = rowColumns(JSON.parse(rowJson(0)));
  const jobs: Record<string, MaskJob | undefined> = {
    unmasked: undefined,
    'name (customer)': { plan: { customer: 'name' }, shape: 'flat', columns: [] },
    'name + keep_ends + hash': { plan: { customer: 'name', order_no: { keep_start: 2, keep_end: 4 }, id: 'hash' }, shape: 'flat', columns: [], key: randomBytes(32).toString('hex') },
  };
  const time = (mask: MaskJob | undefined) => {
    const t0 = performance.now();
    for (let n = 0; n < rows / 1000; n++) {
      const r = encodePage({ body: pages[n % pages.length]!, page: 0, where: 'bench', probed: { total: rows, pageSize: 1000 }, columns, ext: 'csv', mask });
      if (!r.ok) throw new Error(r.message);
    }
    return performance.now() - t0;
  };
  const runs: Record<string, number[]> = Object.fromEntries(Object.keys(jobs).map((k) => [k, []]));
  for (let i = 0; i < 6; i++) {
    for (const [name, job] of Object.entries(jobs)) {
      const ms = time(job);
      if (i > 0) runs[name]!.push(ms); // the first round warms up
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = med(runs.unmasked!);
  return [
    `CSV page encoding, ${rows.toLocaleString('en')} rows, median of 5 (bench/encode-masked.ts)`,
    '',
    '| masks | ms | rows/s | vs unmasked |',
    '| --- | ---: | ---: | ---: |',
    ...Object.keys(jobs).map((k) => {
      const ms = med(runs[k]!);
      return `| ${k} | ${ms.toFixed(0)} | ${Math.round(rows / (ms / 1000)).toLocaleString('en')} | ${(ms / base).toFixed(2)} |`;
    }),
  ].join('\n');
}
