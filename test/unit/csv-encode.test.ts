// The hand-written row encoder must write exactly what csv-stringify writes with our options, and
// what it writes must read back as the same cells (RFC 4180), whatever the text holds.
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { type CsvStyle, csvOptions, encodeCsvHead, encodeCsvRows, escapeFormula, stringifyOptions } from '../../domain/formats/csv/encode.js';

/** The reference: the conversion the encoder documents, then csv-stringify itself. */
function reference(rows: Record<string, unknown>[], keys: string[], options: Record<string, unknown> = csvOptions): string {
  const cell = (v: unknown): string => {
    if (v === null || v === undefined) return '';
    if (typeof v === 'string') return escapeFormula(v);
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
    return escapeFormula(JSON.stringify(v));
  };
  return stringify(rows.map((r) => keys.map((k) => cell(r[k]))), options);
}

// A small deterministic generator (xorshift), so a failure is reproducible.
function random(seed: number) {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
const ALPHABET = ['a', 'Z', '0', '9', ' ', ',', '"', '""', '\r', '\n', '\r\n', '=', '+', '-', '@', '\t', "'", '.', 'e', '客', '户', '😀', ';', '|', '\\'];

function value(rnd: () => number): unknown {
  const kind = Math.floor(rnd() * 10);
  if (kind === 0) return null;
  if (kind === 1) return undefined;
  if (kind === 2) return (rnd() - 0.5) * 10 ** Math.floor(rnd() * 30 - 5);
  if (kind === 3) return rnd() < 0.5;
  if (kind === 4) return { a: 'x,"y"', b: [1, '=2'] };
  if (kind === 5) return ['-1', '=SUM(A1)'];
  let s = '';
  for (let n = Math.floor(rnd() * 8); n > 0; n--) s += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
  return s;
}

describe('encodeCsvRows', () => {
  it('equals csv-stringify with our options for random cells', () => {
    const rnd = random(20261122);
    const keys = ['a', 'b', 'c', 'missing'];
    for (let round = 0; round < 200; round++) {
      const rows = Array.from({ length: 50 }, () => ({ a: value(rnd), b: value(rnd), c: value(rnd) }));
      const got = encodeCsvRows(rows, keys.map((key) => ({ key, title: key })));
      expect(got.toString('utf8')).toBe(reference(rows, keys));
    }
  });

  it('equals csv-stringify with the same delimiter and record delimiter in every dialect', () => {
    const rnd = random(20261127);
    const keys = ['a', 'b', 'c'];
    const styles: CsvStyle[] = (['crlf', 'lf'] as const).flatMap((lineEnding) => ([',', ';', '\t', '|'] as const).map((delimiter) => ({ delimiter, lineEnding })));
    for (let round = 0; round < 60; round++) {
      const rows = Array.from({ length: 30 }, () => ({ a: value(rnd), b: value(rnd), c: value(rnd) }));
      for (const style of styles) {
        const got = encodeCsvRows(rows, keys.map((key) => ({ key, title: key })), style);
        expect(got.toString('utf8'), JSON.stringify(style)).toBe(reference(rows, keys, stringifyOptions(style)));
      }
    }
  });

  it('quotes a lone LF or CR so the row stays one record, and reads back as written', () => {
    const rows = [
      { id: 1, note: 'line 1\nline 2' },
      { id: 2, note: 'ends in CR\r' },
      { id: 3, note: 'a "quoted", text' },
      { id: 4, note: '=cmd|x' },
      { id: 5, note: -3.5 },
      { id: 6, note: '-3.5' },
    ];
    const text = encodeCsvRows(rows, [{ key: 'id', title: 'id' }, { key: 'note', title: 'note' }]).toString('utf8');
    expect(text).toBe('1,"line 1\nline 2"\r\n2,"ends in CR\r"\r\n3,"a ""quoted"", text"\r\n4,\'=cmd|x\r\n5,-3.5\r\n6,-3.5\r\n');
    expect(parse(text)).toEqual([
      ['1', 'line 1\nline 2'],
      ['2', 'ends in CR\r'],
      ['3', 'a "quoted", text'],
      ['4', "'=cmd|x"],
      ['5', '-3.5'],
      ['6', '-3.5'],
    ]);
  });

  it('writes nothing for no rows, and the head with or without a BOM', () => {
    expect(encodeCsvRows([], [{ key: 'a', title: 'a' }]).length).toBe(0);
    const cols = [{ key: 'a', title: '编号' }, { key: 'b', title: '=x, "y"' }];
    expect(encodeCsvHead(cols, true).toString('utf8')).toBe('\ufeff编号,"\'=x, ""y"""\r\n');
    expect(encodeCsvHead(cols, false).toString('utf8')).toBe('编号,"\'=x, ""y"""\r\n');
  });
});
