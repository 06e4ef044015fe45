// Parquet column types: from the template's cell type when it has one, otherwise inferred from the
// first page's values; and each source value converted to its column's type. A value that does not
// fit its column fails the render with a sentence naming both: a Parquet column has one type, and
// silently writing null would lose the value.
import { DomainError } from '../../errors.js';
import type { Column } from '../columns.js';
import { numericText } from '../template/values.js';

export type Kind = 'int64' | 'double' | 'boolean' | 'date' | 'timestamp' | 'timestamp_utc' | 'string' | 'json';

/** The template's cell types (domain/formats/template/schema.ts) as Parquet kinds. */
const FROM_TEMPLATE: Record<string, Kind> = {
  integer: 'int64',
  number: 'double',
  money: 'double',
  decimal: 'double',
  percent: 'double',
  date: 'date',
  datetime: 'timestamp',
  string: 'string',
};

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const DAY_MS = 86_400_000;

/** The kind the first page's values suggest: one kind for every non-null value, else text. */
function inferKind(values: unknown[]): Kind {
  const seen = values.filter((v) => v !== null && v !== undefined);
  if (seen.length === 0) return 'string';
  if (seen.every((v) => typeof v === 'boolean')) return 'boolean';
  if (seen.every((v) => typeof v === 'number')) return seen.every((v) => Number.isSafeInteger(v)) ? 'int64' : 'double';
  if (seen.every((v) => typeof v === 'object')) return 'json';
  if (seen.every((v) => typeof v === 'string' && DATE.test(v))) return 'date';
  if (seen.every((v) => typeof v === 'string' && DATETIME.exec(v) && !DATETIME.exec(v)![8])) return 'timestamp';
  if (seen.every((v) => typeof v === 'string' && DATETIME.exec(v)?.[8])) return 'timestamp_utc';
  return 'string';
}

export function columnKinds(columns: Column[], firstRows: Record<string, unknown>[]): Kind[] {
  return columns.map((c) => (c.type && FROM_TEMPLATE[c.type]) || inferKind(firstRows.map((r) => r[c.key])));
}

/** Milliseconds since the epoch of a date or date-time text; wall clock unless it names a zone. */
function parseTime(s: string): number | null {
  const m = DATETIME.exec(s) ?? DATE.exec(s);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '', zone] = m;
  let ms = Date.UTC(+y!, +mo! - 1, +d!, +h, +mi, +sec, frac ? Math.round(Number(frac) * 1000) : 0);
  const back = new Date(ms);
  if (back.getUTCDate() !== +d! || back.getUTCMonth() !== +mo! - 1) return null; // 2026-02-30
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return ms;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** One value as its column stores it (null for null), or undefined when it does not fit. */
function convert(v: unknown, kind: Kind): unknown {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case 'string':
      return text(v);
    case 'json':
      return v; // hyparquet-writer writes a JSON column's values as JSON text
    case 'boolean':
      return typeof v === 'boolean' ? v : undefined;
    case 'int64': {
      const n = typeof v === 'number' ? v : typeof v === 'string' ? numericText(v) : null;
      return n !== null && Number.isSafeInteger(n) ? BigInt(n) : undefined;
    }
    case 'double': {
      if (v === '') return null;
      if (typeof v === 'number') return v;
      if (typeof v !== 'string') return undefined;
      const pct = v.trim().endsWith('%') ? numericText(v.trim().slice(0, -1)) : null;
      return pct !== null ? pct / 100 : (numericText(v) ?? undefined);
    }
    case 'date': {
      if (v === '') return null;
      const ms = typeof v === 'string' ? parseTime(v) : null;
      return ms === null ? undefined : Math.floor(ms / DAY_MS);
    }
    default: {
      if (v === '') return null;
      const ms = typeof v === 'string' ? parseTime(v) : null;
      return ms === null ? undefined : BigInt(ms);
    }
  }
}

const KIND_WORD: Record<Kind, string> = {
  int64: 'an integer',
  double: 'a number',
  boolean: 'true or false',
  date: 'a date (yyyy-mm-dd)',
  timestamp: 'a date-time (yyyy-mm-dd hh:mm:ss)',
  timestamp_utc: 'a date-time with a zone (yyyy-mm-ddThh:mm:ssZ)',
  string: 'text',
  json: 'an object or array',
};

/** A converter for one column; `row` numbers the row in the export for the error's sentence. */
export function converter(column: Column, kind: Kind): (v: unknown, row: number) => unknown {
  return (v, row) => {
    const out = convert(v, kind);
    if (out !== undefined) return out;
    const shown = JSON.stringify(v)!.slice(0, 60);
    const from = column.type ? `the template's type "${column.type}"` : 'the first page, as no template gives its type';
    throw new DomainError('render_failed', `row ${row + 1}, column "${column.key}": ${shown} is not ${KIND_WORD[kind]}, the column's Parquet type (from ${from}); give the column a template type "string" to keep such values`);
  };
}
