// Parquet's column types from every row (not the first page), the date and date-time conversion
// for the years 0001–9999 (no two-digit-year trap, no roll-over of an impossible time), and rows
// read by their own keys only. Through the public columnKinds / converter of
// domain/formats/parquet/types.ts; the render itself: parquet-render-exact.test.ts.
import { describe, expect, it } from 'vitest';
import { columnKinds, converter, type Kind } from '../../domain/formats/parquet/types.js';

const col = (key: string, type?: string) => ({ key, title: key, ...(type ? { type } : {}) });
const DAY_MS = 86_400_000;
/** An independent clock: setUTCFullYear takes the year as it is (Date.UTC maps 0–99 to 1900–1999). */
const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, ms);
  return t.getTime();
};
const kindsOf = (rows: Record<string, unknown>[]): Kind[] => columnKinds([col('v')], rows);
const values = (...vs: unknown[]) => vs.map((v) => ({ v }));
const late = (early: unknown, last: unknown, n = 1000) => [...values(...Array<unknown>(n).fill(early)), { v: last }];

describe('Parquet column types from every row', () => {
  it('turns an integer column into doubles when a decimal comes late', () => {
    expect(kindsOf(late(7, 1200.5))).toEqual(['double']);
    expect(kindsOf(late(1200.5, 7))).toEqual(['double']);
    expect(kindsOf(late(7, 8))).toEqual(['int64']);
  });

  it('gives a column null until late its later values\' type', () => {
    expect(kindsOf(late(null, 5))).toEqual(['int64']);
    expect(kindsOf(late(null, '2026-11-24'))).toEqual(['date']);
    expect(kindsOf(late(null, '2026-11-24 10:00:00'))).toEqual(['timestamp']);
    expect(kindsOf(late(null, true))).toEqual(['boolean']);
    expect(kindsOf(late(undefined, { a: 1 }))).toEqual(['json']);
    // All null: nothing tells a type; text holds anything.
    expect(kindsOf(late(null, null))).toEqual(['string']);
  });

  it('makes mixed kinds text', () => {
    for (const [a, b] of [[1, 'x'], [true, 1], [1.5, false], ['2026-11-24', '2026-11-24 10:00'], ['2026-11-24', 'x'], [{ a: 1 }, 'x'], [1, { a: 1 }], ['2026-11-24T10:00Z', '2026-11-24T10:00']] as const) {
      expect(kindsOf(late(a, b)), `${JSON.stringify(a)} then ${JSON.stringify(b)}`).toEqual(['string']);
    }
    const conv = converter(col('v'), 'string');
    expect([1, 1.5, true, 'x', { a: [1] }, null].map((v) => conv(v, 0))).toEqual(['1', '1.5', 'true', 'x', '{"a":[1]}', null]);
  });

  it('keeps an integer column INT64 beyond 2^53 and never rounds a text\'s digits', () => {
    // 2^60 is a double JavaScript holds exactly: an INT64, not a double.
    expect(kindsOf(late(1, 2 ** 60))).toEqual(['int64']);
    expect(converter(col('v'), 'int64')(2 ** 60, 0)).toBe(2n ** 60n);
    // Beyond int64 only a double holds it (exactly the value JavaScript parsed).
    expect(kindsOf(late(1, 2 ** 64))).toEqual(['double']);
    // A template integer takes a text's own digits, all of them, and refuses beyond int64.
    const int = converter(col('v', 'integer'), 'int64');
    expect(int('9007199254740993', 0)).toBe(9007199254740993n);
    expect(int('-9,223,372,036,854,775,808', 0)).toBe(-(2n ** 63n));
    expect(() => int('9223372036854775808', 4)).toThrow(/row 5, column "v": "9223372036854775808" is not an integer/);
    expect(() => int(2 ** 64, 4)).toThrow(/row 5, column "v"/);
    expect(() => int('007', 4)).toThrow(/"007" is not an integer/);
    // An exponent's text is taken only where its double is exact: never rounded, never out of range.
    expect(int('1e3', 0)).toBe(1000n);
    expect(() => int('1.23456789012345e17', 4)).toThrow(/"1.23456789012345e17" is not an integer/);
    expect(() => int('1e19', 4)).toThrow(/"1e19" is not an integer/);
  });

  it('fails a template type\'s misfit at the row it is on, whatever the page', () => {
    const cols = [col('id', 'integer'), col('day', 'date'), col('free')];
    const rows = Array.from({ length: 1300 }, (_, i) => ({ id: i === 1234 ? 'n/a' : i, day: '2026-11-24', free: i }));
    expect(() => columnKinds(cols, rows)).toThrow(/row 1235, column "id": "n\/a" is not an integer.*template's type "integer"/);
    const days = rows.map((r, i) => ({ ...r, id: i, day: i === 1299 ? '2026-02-30' : r.day }));
    expect(() => columnKinds(cols, days)).toThrow(/row 1300, column "day": "2026-02-30" is not a real date/);
    expect(columnKinds(cols, days.slice(0, 1299))).toEqual(['int64', 'date', 'int64']);
  });

  it('reads a row\'s own keys only: a key named like Object.prototype\'s members is absent unless the row has it', () => {
    const names = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
    const cols = names.map((n) => col(n));
    const rows = [{ id: 1 }, JSON.parse('{"__proto__": 5, "toString": "own"}') as Record<string, unknown>];
    expect(columnKinds(cols, [rows[0]!])).toEqual(names.map(() => 'string'));
    expect(columnKinds(cols, rows)).toEqual(names.map((n) => (n === '__proto__' ? 'int64' : 'string')));
  });

  it('takes a template type by its own name only: "constructor" or "toString" is an unknown type, inferred', () => {
    const cols = [col('a', 'constructor'), col('b', 'toString'), col('c', 'valueOf')];
    expect(columnKinds(cols, [{ a: 1, b: '2026-11-24', c: true }])).toEqual(['int64', 'date', 'boolean']);
  });
});

describe('Parquet dates and date-times', () => {
  const date = converter(col('d', 'date'), 'date');
  const local = converter(col('t', 'datetime'), 'timestamp');
  const zoned = converter(col('z'), 'timestamp_utc');

  it('keep their value in every year 0001–9999', () => {
    for (const y of [1, 99, 100, 1582, 1899, 1900, 1970, 2000, 9999]) {
      const yyyy = String(y).padStart(4, '0');
      expect(date(`${yyyy}-01-01`, 0), yyyy).toBe(utc(y, 1, 1) / DAY_MS);
      expect(date(`${yyyy}-12-31`, 0), yyyy).toBe(utc(y, 12, 31) / DAY_MS);
      expect(local(`${yyyy}-03-04 05:06:07.089`, 0), yyyy).toBe(BigInt(utc(y, 3, 4, 5, 6, 7, 89)));
      expect(local(`${yyyy}-12-31T23:59:59.999`, 0), yyyy).toBe(BigInt(utc(y, 12, 31, 23, 59, 59, 999)));
    }
    expect(date('0001-01-01', 0)).toBe(-719_162);
    expect(date('9999-12-31', 0)).toBe(2_932_896);
    expect(date('1582-10-04', 0)).toBe(date('1582-10-15', 0) as number - 11); // proleptic Gregorian: no gap
    expect(date('2000-02-29', 0)).toBe(utc(2000, 2, 29) / DAY_MS);
    expect(local('2026-11-24 10:00', 0)).toBe(BigInt(utc(2026, 11, 24, 10)));
    expect(local('2026-11-24T10:00:00.5', 0)).toBe(BigInt(utc(2026, 11, 24, 10, 0, 0, 500)));
    // A date-time's date in a date column is the date as written, whatever its zone.
    expect(date('2026-11-24T01:00:00+08:00', 0)).toBe(utc(2026, 11, 24) / DAY_MS);
  });

  it('store an offset\'s date-time as its UTC instant', () => {
    expect(zoned('2026-11-24T10:00:00+08:00', 0)).toBe(BigInt(utc(2026, 11, 24, 2)));
    expect(zoned('2026-11-24T10:00:00-0530', 0)).toBe(BigInt(utc(2026, 11, 24, 15, 30)));
    expect(zoned('0001-01-01T10:00:00Z', 0)).toBe(BigInt(utc(1, 1, 1, 10)));
    expect(local('2026-11-24 10:00:00+01:00', 0)).toBe(BigInt(utc(2026, 11, 24, 9)));
  });

  it('refuse an impossible one rather than move it', () => {
    for (const bad of ['2026-02-30', '2026-13-01', '2026-00-10', '2026-11-00', '2026-11-31', '2023-02-29', '1900-02-29', '0000-01-01']) {
      expect(() => date(bad, 6), bad).toThrow(new RegExp(`row 7, column "d": "${bad}" is not a real date`));
      expect(kindsOf(late('2026-11-24', bad)), bad).toEqual(['string']);
    }
    for (const bad of ['2026-11-24 10:75:00', '2026-11-24 24:00:00', '2026-11-24 10:60', '2026-11-24 10:00:60', '2026-11-24 10:00:61', '2026-11-24 99:00', '2026-02-30 10:00']) {
      expect(() => local(bad, 6), bad).toThrow(new RegExp(`row 7, column "t": "${bad}" is not a real date-time`));
      expect(kindsOf(late('2026-11-24 10:00:00', bad)), bad).toEqual(['string']);
    }
    // An offset past ±23:59, or one carrying the instant out of the years 0001–9999.
    for (const bad of ['2026-11-24T10:00+24:00', '2026-11-24T10:00+05:60', '0001-01-01T00:00:00+01:00', '9999-12-31T23:30:00-01:00']) {
      expect(() => zoned(bad, 0), bad).toThrow(/is not a real date-time with a zone/);
      expect(kindsOf(late('2026-11-24T10:00Z', bad)), bad).toEqual(['string']);
    }
  });
});
