// Parquet column types: from the template's cell type when it has one, otherwise from every row
// of the export (a first pass over the staged rows, TypePass, holding a few flags per column); and
// each source value converted to its column's type. A value that does not fit its template type
// fails the render with a sentence naming row and column, found by the first pass before a byte
// is written: a Parquet column has one type, and silently writing null would lose the value.
import { DomainError } from '../../errors.js';
import type { Column } from '../columns.js';
import { ownReader } from '../own.js';
import { numericText } from '../template/values.js';
import { parseMoment, readMoment } from './dates.js';
import * as V from './scan.js';
import type { LineScanner, ScannedRow } from './scan.js';

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

/** A template type's kind; an unknown one (a source's own template is not checked), "toString" too, is none. */
export const templateKind = (column: Column): Kind | undefined => (column.type && Object.hasOwn(FROM_TEMPLATE, column.type) ? FROM_TEMPLATE[column.type] : undefined);


/** Each key once, in the columns' order: what a line scanner is made for. */
export const uniqueKeys = (columns: Column[]): string[] => [...new Set(columns.map((c) => c.key))];

/** The columns written: a key the template repeats is one field, at its first place (parts.ts). */
export const firstOfKey = (columns: Column[]): boolean[] => columns.map((c, i) => columns.findIndex((d) => d.key === c.key) === i);

// What the first pass saw in a column without a template type: one bit per kind of value.
const INT = 1; // an integer JavaScript holds exactly within int64
const FRACTION = 2; // a number with a fraction, or an integer beyond int64
const BOOL = 4;
const NESTED = 8;
const DATE = 16;
const LOCAL_TIME = 32;
const ZONED_TIME = 64;
const TEXT = 128;
const INT64_LIMIT = 2 ** 63;

function seen(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) && Math.abs(v) < INT64_LIMIT ? INT : FRACTION;
    case 'boolean':
      return BOOL;
    case 'object':
      return NESTED;
    case 'string': {
      const m = parseMoment(v);
      return !m ? TEXT : m.dateOnly ? DATE : m.zoned ? ZONED_TIME : LOCAL_TIME;
    }
    default:
      return TEXT;
  }
}

const momentBits = () => (readMoment.dateOnly ? DATE : readMoment.zoned ? ZONED_TIME : LOCAL_TIME);

/** seen() of a value the line scanner located (scan.ts), read from its bytes where it can be. */
function seenAt(s: ScannedRow, col: number): number {
  switch (s.kinds[col]) {
    case V.INT:
      return INT;
    case V.NUMBER_FAST:
      // At most 15 digits: an integer here is well within int64.
      return Number.isInteger(s.numbers[col]!) ? INT : FRACTION;
    case V.NUMBER:
      return seen(s.numberAt(col));
    case V.TRUE:
    case V.FALSE:
      return BOOL;
    case V.NESTED:
      return NESTED;
    case V.TEXT:
      return s.momentOf(col) ? momentBits() : TEXT;
    case V.ESCAPED:
      return seen(s.decoded(col));
    default:
      return 0;
  }
}

/** Whether a value the scanner located fits a template's kind as it stands; false: convert it to see. */
function fitsAsRead(kind: Kind, s: ScannedRow, col: number): boolean {
  const t = s.kinds[col];
  switch (kind) {
    case 'double':
      return t === V.INT || t === V.NUMBER_FAST || t === V.NUMBER;
    case 'int64':
      return t === V.INT;
    case 'boolean':
      return t === V.TRUE || t === V.FALSE;
    case 'date':
    case 'timestamp':
    case 'timestamp_utc':
      return t === V.TEXT && s.momentOf(col);
    default:
      return false;
  }
}

export const sameKinds = (a: readonly Kind[], b: readonly Kind[]): boolean => a.length === b.length && a.every((k, i) => k === b[i]);

/** The kind of everything a column held: one kind of value, integers with fractions as doubles, else text. */
export function kindOf(bits: number): Kind {
  switch (bits) {
    case 0:
      return 'string'; // all null: nothing tells a type, and text holds any later value
    case INT:
      return 'int64';
    case FRACTION:
    case INT | FRACTION:
      return 'double';
    case BOOL:
      return 'boolean';
    case NESTED:
      return 'json';
    case DATE:
      return 'date';
    case LOCAL_TIME:
      return 'timestamp';
    case ZONED_TIME:
      return 'timestamp_utc';
    default:
      return 'string';
  }
}

/**
 * The first pass: every row is seen once, in order; a column with a template type has each value
 * checked against it (the task fails here, naming row and column, before the file is begun), the
 * others gather what kinds of values they hold. Memory: one number per column.
 */
export class TypePass {
  private readonly read: Array<(row: Record<string, unknown>) => unknown>;
  private readonly check: Array<((v: unknown, row: number) => unknown) | null>;
  private readonly template: Array<Kind | undefined>;
  private readonly bits: number[];
  private readonly first: boolean[];
  private readonly text: boolean[];
  /** Each column's place among the scanner's keys. */
  private readonly slot: number[];
  private rowNo = 0;

  constructor(private readonly columns: Column[]) {
    this.first = firstOfKey(columns);
    const keys = uniqueKeys(columns);
    this.slot = columns.map((c) => keys.indexOf(c.key));
    this.read = columns.map((c) => ownReader(c.key));
    this.template = columns.map((c) => templateKind(c));
    // Text holds any value: a template's "string" column needs no look at all.
    this.check = columns.map((c, i) => (this.template[i] && this.template[i] !== 'string' ? converter(c, this.template[i]) : null));
    this.bits = columns.map(() => 0);
    this.text = columns.map((_, i) => this.template[i] === 'string');
  }

  /**
   * One staged line read in place by `scanner` (made for `uniqueKeys(columns)`); false when the
   * scanner cannot read it, and the caller parses it and calls add() instead.
   */
  addLine(scanner: LineScanner, b: Buffer, from: number, to: number): boolean {
    if (!scanner.scan(b, from, to)) return false;
    this.addScanned(scanner);
    return true;
  }

  /**
   * The line `scanner` has just read (its scan() answered true), or a row of staged values.
   * `inferred` false: only the template-typed columns are looked at (the others' kinds are added
   * a piece at a time, addBits).
   */
  addScanned(scanner: ScannedRow, inferred = true): void {
    const at = this.rowNo++;
    for (let c = 0; c < this.columns.length; c++) {
      if (!this.first[c]) continue;
      const k = this.slot[c]!;
      if (scanner.kinds[k]! <= V.NULL) continue;
      const check = this.check[c];
      if (check) {
        if (!fitsAsRead(this.template[c]!, scanner, k)) check(scanner.decoded(k), at);
      } else if (inferred && !this.text[c]) {
        this.bits[c]! |= seenAt(scanner, k);
        this.text[c] = kindOf(this.bits[c]!) === 'string';
      }
    }
  }

  /**
   * The kinds of value a piece of staged values holds, per column (its headers' bits, staged.ts,
   * in uniqueKeys' order): what addScanned(…, false) leaves to them.
   */
  addBits(bits: Uint8Array): void {
    for (let c = 0; c < this.columns.length; c++) {
      if (!this.first[c] || this.check[c] || this.text[c]) continue;
      this.bits[c]! |= bits[this.slot[c]!]!;
      // Text already (a column null so far is not: kindOf(0) is its stand-in, not a kind seen).
      this.text[c] = this.bits[c] !== 0 && kindOf(this.bits[c]!) === 'string';
    }
  }

  /** Rows seen elsewhere (a piece's row groups taken as the lane encoded them): only counted. */
  skipRows(n: number): void {
    this.rowNo += n;
  }

  add(row: Record<string, unknown>): void {
    const at = this.rowNo++;
    for (let c = 0; c < this.columns.length; c++) {
      if (!this.first[c]) continue;
      const v = this.read[c]!(row);
      if (v === null || v === undefined) continue;
      const check = this.check[c];
      if (check) check(v, at);
      else if (!this.text[c]) {
        this.bits[c]! |= seen(v);
        // Text already: no later value changes that, so its values need no more looks.
        this.text[c] = kindOf(this.bits[c]!) === 'string';
      }
    }
  }

  /** Each column's kind: its template's, else what all its values fit. */
  kinds(): Kind[] {
    return this.columns.map((c, i) => templateKind(c) ?? kindOf(this.bits[i]!));
  }
}

/** Every row's kinds at once: for rows in memory (a test, a preview); the render uses TypePass. */
export function columnKinds(columns: Column[], rows: Record<string, unknown>[]): Kind[] {
  const pass = new TypePass(columns);
  for (const r of rows) pass.add(r);
  return pass.kinds();
}

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v));

// No leading zero: "007" is a code, and an integer would drop its zeros.
const INTEGER_TEXT = /^[+-]?(0|[1-9]\d*|[1-9]\d{0,2}(,\d{3})+)$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An integer in int64 as BigInt: a number JavaScript holds exactly, or a text's own digits (never rounded). */
function int64(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < INT64_LIMIT ? BigInt(v) : undefined;
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  if (INTEGER_TEXT.test(t)) {
    const n = BigInt(t.replace(/,/g, ''));
    return n >= INT64_MIN && n <= INT64_MAX ? n : undefined;
  }
  // "1.0", "1e3": only where the double is exactly the text's value; past 2^53 ("1.23456789012345e17",
  // "1e19") it may not be, so such a text is refused, not rounded (or handed to the writer out of range).
  const n = numericText(t);
  return n !== null && Number.isSafeInteger(n) ? BigInt(n) : undefined;
}

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
    case 'int64':
      return v === '' ? null : int64(v);
    case 'double': {
      if (v === '') return null;
      if (typeof v === 'number') return v;
      if (typeof v !== 'string') return undefined;
      const pct = v.trim().endsWith('%') ? numericText(v.trim().slice(0, -1)) : null;
      return pct !== null ? pct / 100 : (numericText(v) ?? undefined);
    }
    case 'date': {
      if (v === '') return null;
      // A date-time's date as written (its wall clock; a DATE has no time to keep it in).
      return typeof v === 'string' ? parseMoment(v)?.days : undefined;
    }
    default: {
      if (v === '') return null;
      const ms = typeof v === 'string' ? parseMoment(v)?.ms : undefined;
      return ms === undefined ? undefined : BigInt(ms);
    }
  }
}

const KIND_WORD: Record<Kind, string> = {
  int64: 'an integer (int64)',
  double: 'a number',
  boolean: 'true or false',
  date: 'a real date of the years 0001–9999 (yyyy-mm-dd)',
  timestamp: 'a real date-time of the years 0001–9999 (yyyy-mm-dd hh:mm:ss)',
  timestamp_utc: 'a real date-time with a zone (yyyy-mm-ddThh:mm:ssZ)',
  string: 'text',
  json: 'an object or array',
};

/** A converter for one column; `row` numbers the row in the export for the error's sentence. */
export function converter(column: Column, kind: Kind): (v: unknown, row: number) => unknown {
  return (v, row) => {
    const out = convert(v, kind);
    if (out !== undefined) return out;
    // JSON spelling (a NUL or a lone surrogate escaped: the sentence is stored as text), cut by code point.
    const shown = [...JSON.stringify(v)!].slice(0, 60).join('');
    const from = column.type ? `the template's type "${column.type}"` : 'the exported rows, as no template gives its type';
    throw new DomainError('render_failed', `row ${row + 1}, column ${JSON.stringify(column.key)}: ${shown} is not ${KIND_WORD[kind]}, the column's Parquet type (from ${from}); give the column a template type "string" to keep such values`);
  };
}
