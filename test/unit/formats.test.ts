// JSON Lines encoding, the text parts' line cutting and compression, and Parquet's column types and field names.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { CsvParts, lineEnds } from '../../domain/formats/csv/parts.js';
import { encodeJsonLines } from '../../domain/formats/jsonl.js';
import { ParquetParts } from '../../domain/formats/parquet/parts.js';
import { columnKinds, converter } from '../../domain/formats/parquet/types.js';
import { readOutside, unzstd } from '../support/pyreaders.js';

const dir = mkdtempSync(join(tmpdir(), 'dc-formats-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('encodeJsonLines', () => {
  it('writes the columns in order, missing keys as null, and a __proto__ key as an own key', () => {
    const cols = [{ key: '__proto__', title: 'p' }, { key: 'b', title: 'b' }, { key: 'constructor', title: 'c' }];
    const out = encodeJsonLines([{ b: [1, { x: 'é\n' }], ['__proto__']: 5 }, null, { constructor: false }], cols).toString('utf8');
    // JSON.parse treats "__proto__" as an own key, as the source's JSON did.
    expect(out).toBe('{"__proto__":5,"b":[1,{"x":"é\\n"}],"constructor":null}\n{"__proto__":null,"b":null,"constructor":null}\n{"__proto__":null,"b":null,"constructor":false}\n');
    const parsed = encodeJsonLines([JSON.parse('{"__proto__":5,"b":2}')], cols).toString('utf8');
    expect(parsed).toBe('{"__proto__":5,"b":2,"constructor":null}\n');
  });
});

describe('text parts', () => {
  it('cuts JSON Lines between lines, and gzip and zstd parts decompress to the lines', async () => {
    expect(lineEnds(Buffer.from('{"a":"x\\ny"}\n{"a":1}\n'))).toEqual([13, 21]);
    const lines = Array.from({ length: 50 }, (_, i) => `{"i":${i},"s":"${'x'.repeat(i)}"}\n`);
    for (const compression of [null, 'gzip', 'zstd'] as const) {
      const parts = new CsvParts(Buffer.alloc(0), { maxRows: 20, maxBytes: 1e9 }, (n) => join(dir, `${compression}-${n}`), { recordEnds: lineEnds, compression });
      await parts.page(Buffer.from(lines.slice(0, 30).join('')), 30);
      await parts.page(Buffer.from(lines.slice(30).join('')), 20);
      const written = await parts.finish();
      expect(written.map((p) => p.rows)).toEqual([20, 20, 10]);
      const text = written.map((p) => {
        const raw = readFileSync(p.path);
        expect(raw.length).toBe(p.bytes);
        if (compression === 'gzip') return gunzipSync(raw).toString('utf8');
        if (compression === 'zstd') return unzstd(p.path).toString('utf8');
        return raw.toString('utf8');
      });
      expect(text.join('')).toBe(lines.join(''));
    }
  });

  it('writes an empty export as a compressed file that decompresses to nothing', async () => {
    for (const compression of ['gzip', 'zstd'] as const) {
      const parts = new CsvParts(Buffer.alloc(0), { maxRows: 20, maxBytes: 1e9 }, (n) => join(dir, `empty-${compression}-${n}`), { recordEnds: lineEnds, compression });
      const [file] = await parts.finish();
      const raw = readFileSync(file!.path);
      expect(raw.length, compression).toBeGreaterThan(0);
      if (compression === 'gzip') expect(gunzipSync(raw).length).toBe(0);
      else expect(unzstd(file!.path).length).toBe(0);
    }
  });
});

describe('Parquet column types', () => {
  it('takes the template type, else infers from the first page', () => {
    const cols = ['i', 'f', 'd', 't', 'z', 'b', 'o', 'm', 'n', 'typed'].map((key) => ({ key, title: key, ...(key === 'typed' ? { type: 'money' } : {}) }));
    const rows = [
      { i: 1, f: 1.5, d: '2026-11-24', t: '2026-11-24 10:00:00', z: '2026-11-24T10:00:00Z', b: true, o: { a: 1 }, m: 1, n: null, typed: '12.5' },
      { i: 2, f: 2, d: null, t: '2026-11-24T10:00', z: '2026-11-24T10:00:00+08:00', b: false, o: [1], m: 'x', n: null, typed: 3 },
    ];
    expect(columnKinds(cols, rows)).toEqual(['int64', 'double', 'date', 'timestamp', 'timestamp_utc', 'boolean', 'json', 'string', 'string', 'double']);
  });

  it('converts values, and names row, column and origin when one does not fit', () => {
    const col = { key: 'n', title: 'n' };
    expect(converter(col, 'int64')('1,234', 0)).toBe(1234n);
    expect(converter({ ...col, type: 'percent' }, 'double')('12%', 0)).toBe(0.12);
    expect(converter(col, 'date')('2026-11-24', 0)).toBe(Date.UTC(2026, 10, 24) / 86_400_000);
    expect(converter(col, 'timestamp_utc')('2026-11-24T10:00:00+08:00', 0)).toBe(BigInt(Date.UTC(2026, 10, 24, 2)));
    expect(converter(col, 'string')({ a: 1 }, 0)).toBe('{"a":1}');
    expect(() => converter(col, 'date')('2026-02-30', 41)).toThrow(/row 42, column "n": "2026-02-30" is not a real date/);
    expect(() => converter({ ...col, type: 'integer' }, 'int64')(1.5, 0)).toThrow(/template's type "integer"/);
  });
});

describe('Parquet field names', () => {
  it('writes a key the template repeats once, at its first place, as JSON Lines does', async () => {
    // "2024 › amount" and "2025 › amount" both read the row's amount.
    const cols = [{ key: 'id', title: 'id' }, { key: 'amount', title: 'amount', type: 'money' }, { key: 'amount', title: 'amount', type: 'string' }, { key: 'note', title: 'note' }];
    const rows = [{ id: 1, amount: 2.5, note: 'a' }, { id: 2, amount: '3', note: null }];
    const parts = new ParquetParts(cols, columnKinds(cols, rows), { maxRows: 1e9, maxBytes: 1e12 }, (n) => join(dir, `repeated-${n}.parquet`));
    for (const r of rows) parts.add(r, JSON.stringify(r).length);
    const [file] = await parts.finish();
    const { pyarrow, duckdb } = await readOutside('parquet', file!.path);
    expect(pyarrow.types).toEqual({ id: 'int64', amount: 'double', note: 'string' });
    expect(pyarrow.rows).toEqual([[['int', 1], ['float', 2.5], ['str', 'a']], [['int', 2], ['float', 3], ['none', null]]]);
    expect(duckdb.rows).toEqual(pyarrow.rows);
    expect(encodeJsonLines(rows.slice(0, 1), cols).toString('utf8')).toBe('{"id":1,"amount":2.5,"note":"a"}\n');
  });
});
