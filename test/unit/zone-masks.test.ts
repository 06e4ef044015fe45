// time_zone with masks and template types (docs/formats.md#time_zone): a masked zoned date-time is
// moved to the zone before it is masked, and a column the template types `string` is never moved,
// by the masker, by the byte transcoder and by the ordinary CSV encoder alike.
import { describe, expect, it } from 'vitest';
import type { Column } from '../../domain/formats/columns.js';
import { encodeCsvRows } from '../../domain/formats/csv/encode.js';
import { transcoderFor } from '../../domain/formats/csv/transcode.js';
import { pageMasker } from '../../domain/formats/mask/rows.js';
import { maskJob } from '../../domain/staging/masks.js';
import { metaFromProbe } from '../../domain/staging/meta.js';

const AT = '2026-11-26T16:30:00Z';
const template = [
  { name: 'paid', type: 'datetime', mask: { keep_start: 13, keep_end: 0 } },
  { name: 'ref', type: 'string', mask: { keep_start: 13, keep_end: 0 } },
  { name: 'plain', mask: { keep_start: 13, keep_end: 0 } },
];
const meta = metaFromProbe({ total: 1, data: [], template }, { type: 'csv', pageSize: 10, options: {} }, 1000);
const style = { delimiter: ';' as const, timeZone: 'Asia/Shanghai' };

describe('masks after time_zone', () => {
  it('masks the zone\'s wall clock of a zoned date-time, and a string-typed column as written', () => {
    const job = maskJob('csv', meta, undefined, 'Asia/Shanghai')!;
    const [row] = pageMasker(job)([{ paid: AT, ref: AT, plain: AT }]);
    expect(row).toEqual({ paid: '2026-11-27 00******', ref: '2026-11-26T16*******', plain: '2026-11-27 00******' });
  });

  it('leaves the instant alone for JSON Lines and Parquet, and without a zone', () => {
    for (const job of [maskJob('jsonl', meta, undefined, 'Asia/Shanghai')!, maskJob('parquet', meta, undefined, 'Asia/Shanghai')!, maskJob('csv', meta, undefined)!]) {
      expect(pageMasker(job)([{ paid: AT }])).toEqual([{ paid: '2026-11-26T16*******' }]);
    }
  });
});

describe('a string-typed column and time_zone in CSV', () => {
  const columns: Column[] = [{ key: 'at', title: 'at', type: 'datetime' }, { key: 'ref', title: 'ref', type: 'string' }, { key: 'none', title: 'none' }];
  const rows = [{ at: AT, ref: AT, none: AT }, { at: '=1', ref: `${AT}\n`, none: '2026-11-26T16:30:00+08:00' }];
  const want = `2026-11-27 00:30:00;${AT};2026-11-27 00:30:00\r\n'=1;"${AT}\n";2026-11-26 16:30:00\r\n`;

  it('the ordinary encoder moves every column but the string-typed one', () => {
    expect(encodeCsvRows(rows, columns, style).toString('utf8')).toBe(want);
  });

  it('the byte transcoder writes the same bytes', () => {
    const page = transcoderFor(columns, style).transcode(Buffer.from(JSON.stringify({ total: 2, data: rows })));
    expect(page?.csv.toString('utf8')).toBe(want);
    // The same keys untyped: every column moved (a transcoder of other types is not reused).
    const untyped = transcoderFor(columns.map(({ key, title }) => ({ key, title })), style).transcode(Buffer.from(JSON.stringify({ total: 1, data: [rows[0]] })));
    expect(untyped?.csv.toString('utf8')).toBe('2026-11-27 00:30:00;2026-11-27 00:30:00;2026-11-27 00:30:00\r\n');
  });
});
