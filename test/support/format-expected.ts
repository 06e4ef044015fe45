// What each format must hold for a source value, written from the documented rules (docs/api.md
// "Choices", docs/formats.md, docs/excel.md), not from the product's code; and the comparison of a
// value with what an outside reader saw (test/support/format-readers.py's tagged values).

export type Tagged =
  | ['none']
  | ['bool', boolean]
  | ['int' | 'float' | 'str' | 'date' | 'datetime' | 'datetime_utc', string]
  | ['obj', Array<[string, Tagged]>]
  | ['arr', Tagged[]];

/** A value the source sent (JSON.parse of its text), or undefined for a key the row lacks. */
export type Source = unknown;

/** UTF-8 cannot carry a lone surrogate (JSON's "\ud800"): text files hold U+FFFD in its place. */
export const utf8 = (s: string): string => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

const isObject = (v: unknown): v is object => v !== null && typeof v === 'object';

// ---- CSV (docs/api.md "Choices": RFC 4180, null and missing empty, objects as JSON text, formula guard)

const FORMULA_START = /^[=+\-@\t\r\n\uff1d\uff0b\uff0d\uff20]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/;
export const csvText = (s: string): string => (FORMULA_START.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s);

/** A CSV field: text guarded, a number as JavaScript writes the parsed value, JSON text for nested values. */
export function csvCell(v: Source): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return csvText(utf8(v));
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return csvText(JSON.stringify(v));
}

// ---- xlsx (docs/excel.md: untyped columns hold numbers, booleans, and everything else as text)

/** Characters XML 1.0 cannot carry (C0 controls but tab, LF, CR; U+FFFE, U+FFFF) are dropped. */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
export const xlsxText = (s: string): string => utf8(s).replace(NOT_XML, '');

export function sameXlsx(v: Source, got: Tagged): boolean {
  if (v === null || v === undefined || v === '') return got[0] === 'none';
  if (typeof v === 'number' || typeof v === 'boolean') return sameTagged(v, got);
  const text = xlsxText(typeof v === 'string' ? v : JSON.stringify(v));
  return text === '' ? got[0] === 'none' || (got[0] === 'str' && got[1] === '') : got[0] === 'str' && got[1] === text;
}

// ---- JSON values (JSON Lines: the value as parsed; null for a missing key)

/** A JSON value against a reader's tagged tree: numbers equal as numbers, objects by own keys in order. */
export function sameTagged(v: Source, got: Tagged): boolean {
  if (v === null || v === undefined) return got[0] === 'none';
  if (typeof v === 'boolean') return got[0] === 'bool' && got[1] === v;
  // The same double: past 2^53 a file holds JavaScript's shortest spelling of it (18446744073709552000
  // for 2^64), which a reader may take as an int; as a number it is the value the source sent.
  if (typeof v === 'number') return (got[0] === 'int' || got[0] === 'float') && Number(got[1]) === v;
  if (typeof v === 'string') return got[0] === 'str' && got[1] === v;
  if (Array.isArray(v)) return got[0] === 'arr' && got[1].length === v.length && v.every((x, i) => sameTagged(x, got[1][i]!));
  if (!isObject(v) || got[0] !== 'obj') return false;
  const keys = Object.keys(v);
  return got[1].length === keys.length && keys.every((k, i) => got[1][i]![0] === k && sameTagged((v as Record<string, unknown>)[k], got[1][i]![1]));
}

/** Two JSON values equal as values (own keys in order, numbers by value). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b) || Array.isArray(b)) return false;
    const [ka, kb] = [Object.keys(a), Object.keys(b)];
    return ka.length === kb.length && ka.every((k, i) => kb[i] === k && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b || (a === null && b === undefined);
}

// ---- Parquet (docs/formats.md: column types from all the exported rows, §13 of the issue)

export type ParquetType = 'int64' | 'double' | 'bool' | 'string' | 'date' | 'timestamp' | 'timestamp_utc' | 'json';
export const PYARROW_TYPE: Record<ParquetType, string> = {
  int64: 'int64',
  double: 'double',
  bool: 'bool',
  string: 'string',
  date: 'date32[day]',
  timestamp: 'timestamp[ms]',
  timestamp_utc: 'timestamp[ms, tz=UTC]',
  // pyarrow 26 reads Parquet's JSON logical type as its JSON extension type (values: the JSON text).
  json: 'extension<arrow.json>',
};
export const DUCKDB_TYPE: Record<ParquetType, string> = {
  int64: 'BIGINT',
  double: 'DOUBLE',
  bool: 'BOOLEAN',
  string: 'VARCHAR',
  date: 'DATE',
  timestamp: 'TIMESTAMP',
  timestamp_utc: 'TIMESTAMP WITH TIME ZONE',
  json: 'JSON',
};

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;
const ZONED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(Z|[+-]\d{2}:\d{2})$/;

/** Whether y-m-d (and h:m:s) name a real moment: the calendar's, years 0001–9999. */
function real(y: number, m: number, d: number, h = 0, mi = 0, s = 0): boolean {
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return y >= 1 && t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d && h < 24 && mi < 60 && s < 60;
}
const realMatch = (re: RegExp, s: string): boolean => {
  const m = re.exec(s);
  return !!m && real(+m[1]!, +m[2]!, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
};

const kindOf = (v: unknown): ParquetType => {
  if (typeof v === 'boolean') return 'bool';
  // An integer as parsed (past 2^53 already the nearest double, as in every type) is INT64 while
  // int64 holds it: that double's value exactly (docs/formats.md, Parquet's numbers).
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? 'int64' : 'double';
  if (isObject(v)) return 'json';
  const s = v as string;
  if (realMatch(DATE, s)) return 'date';
  if (realMatch(LOCAL, s)) return 'timestamp';
  if (realMatch(ZONED, s)) return 'timestamp_utc';
  return 'string';
};

/** A column's type from all its non-null values: integers meeting a decimal are doubles, mixed kinds text. */
export function parquetType(values: Source[]): ParquetType {
  const kinds = new Set(values.filter((v) => v !== null && v !== undefined).map(kindOf));
  if (kinds.size === 1) return [...kinds][0]!;
  if (kinds.size === 2 && kinds.has('int64') && kinds.has('double')) return 'double';
  return 'string';
}

export function sameParquet(type: ParquetType, v: Source, got: Tagged): boolean {
  if (v === null || v === undefined) return got[0] === 'none';
  switch (type) {
    case 'int64':
    case 'double':
    case 'bool':
      return sameTagged(v, got);
    case 'date':
      return got[0] === 'date' && got[1] === v;
    case 'timestamp':
      return got[0] === 'datetime' && got[1] === (v as string).replace('T', ' ');
    case 'timestamp_utc':
      return got[0] === 'datetime_utc' && got[1] === new Date(v as string).toISOString().slice(0, 19).replace('T', ' ');
    case 'json':
      return got[0] === 'str' && sameJson(JSON.parse(got[1]), v);
    case 'string':
      return got[0] === 'str' && got[1] === (typeof v === 'string' ? utf8(v) : isObject(v) ? JSON.stringify(v) : String(v));
  }
}

/** How a value shows in a failure message: exact, with its type. */
export const shown = (v: unknown): string => (v === undefined ? 'absent' : typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' ? `${Object.is(v, -0) ? '-0' : String(v)}` : JSON.stringify(v));
