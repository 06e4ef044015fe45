// A Parquet export's staged values (ADR 0056): each fetched page becomes a fragment of the
// columns' values already located, classified and valued, so the render reads every value by its
// tag and length instead of scanning JSON lines (the line scanner was 27 % of the render's CPU,
// the date-times read from their bytes 5 %, `node --cpu-prof` of warm renders, 2026-12-01).
//
// A fragment (a piece holds the fragments of its pages, one after another):
//   0x56 ('V'), rows (varint), the fragment's bytes from its start (varint; both written in five
//   bytes, filled in when the fragment ends), columns (varint), one byte per column: the kinds of value the
//   fragment holds there (types.ts' bits: INT 1, FRACTION 2, BOOL 4, NESTED 8, DATE 16,
//   LOCAL_TIME 32, ZONED_TIME 64, TEXT 128), then each row's values, column by column:
//   a tag, and for
//   - INT (an integer JavaScript holds exactly, not -0) and NUMBER (any other number): its double, 8 bytes LE;
//   - TEXT: the text's UTF-8 length (varint) and bytes, unescaped;
//   - MOMENT (a text naming a date or date-time, dates.ts): flags (1: a date alone, 2: zoned),
//     the days (int32 LE) and milliseconds (double LE) as momentAt reads them, then as TEXT;
//   - ESCAPED (a text that is no well-formed UTF-16, a lone surrogate: JSON.parse's value to keep)
//     and NESTED (an object or array): the length and its JSON text (JSON.stringify's spelling);
//   - ABSENT, NULL, TRUE, FALSE: nothing more.
// The columns are uniqueKeys(meta.columns), in order. Values are what JSON.parse gives for the
// source's row, read by own keys only, exactly as the JSON lines staged before this held them:
// the render writes the same file from either (test/unit/parquet-staged.test.ts).
import type { Column } from '../columns.js';
import { ownValue } from '../own.js';
import { momentAt, readMoment } from './dates.js';
import * as V from './scan.js';

export const MAGIC = 0x56;
/** Staged only: a TEXT that names a moment; the reader shows it as TEXT whose momentOf() is known. */
export const MOMENT = 10;

// The kinds of value a column holds, as types.ts' first pass gathers them.
export const BIT_INT = 1;
export const BIT_FRACTION = 2;
export const BIT_BOOL = 4;
export const BIT_NESTED = 8;
export const BIT_DATE = 16;
export const BIT_LOCAL_TIME = 32;
export const BIT_ZONED_TIME = 64;
export const BIT_TEXT = 128;
const INT64_LIMIT = 2 ** 63;

export const numberBits = (v: number): number => (Number.isInteger(v) && Math.abs(v) < INT64_LIMIT ? BIT_INT : BIT_FRACTION);
/** In a unicode regex a surrogate pair is one code point: this matches a lone surrogate only. */
const LONE_SURROGATE = /\p{Surrogate}/u;

const momentBits = () => (readMoment.dateOnly ? BIT_DATE : readMoment.zoned ? BIT_ZONED_TIME : BIT_LOCAL_TIME);

/** A fragment's values as they are written: one output buffer, grown by doubling, kept between pages. */
export class ValuesOut {
  out: Buffer;
  o = 0;
  /** Per column: the kinds seen in this fragment. */
  bits: Uint8Array;
  private rowsAt = 0;
  private bitsAt = 0;
  private rows = 0;

  constructor(
    readonly columns: number,
    scratch = 1 << 16,
  ) {
    this.out = Buffer.allocUnsafe(scratch);
    this.bits = new Uint8Array(columns);
  }

  /** A new fragment: its header's room taken (rows and bits are filled in by end()). */
  begin(): void {
    this.o = 0;
    this.rows = 0;
    this.bits.fill(0);
    // Magic, rows and length (varints of 5 bytes each, written fixed-width: 0x80-continued), columns, bits.
    this.room(16 + this.columns);
    this.out[this.o++] = MAGIC;
    this.rowsAt = this.o;
    this.o += 10;
    this.varint(this.columns);
    this.bitsAt = this.o;
    this.o += this.columns;
  }

  row(): void {
    this.rows++;
  }

  /** The fragment's bytes (a copy: the buffer is kept for the next page); none for no rows. */
  end(): Buffer {
    if (this.rows === 0) return Buffer.alloc(0);
    const o = this.out;
    fixedVarint(o, this.rowsAt, this.rows);
    fixedVarint(o, this.rowsAt + 5, this.o);
    o.set(this.bits, this.bitsAt);
    // A copy of its own (the buffer is kept for the next page), not zero-filled first.
    const bytes = Buffer.allocUnsafeSlow(this.o);
    o.copy(bytes, 0, 0, this.o);
    return bytes;
  }

  room(n: number): void {
    if (this.o + n <= this.out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.o + n));
    this.out.copy(bigger, 0, 0, this.o);
    this.out = bigger;
  }

  varint(v: number): void {
    const o = this.out;
    while (v > 0x7f) {
      o[this.o++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    o[this.o++] = v;
  }

  tag(t: number): void {
    this.room(1);
    this.out[this.o++] = t;
  }

  /** A number; one past the double's range (JSON.parse's Infinity for 1e999) as JSON writes it: null. */
  number(col: number, v: number): void {
    if (!Number.isFinite(v)) return this.tag(V.NULL);
    this.room(9);
    this.out[this.o++] = Number.isSafeInteger(v) && !Object.is(v, -0) ? V.INT : V.NUMBER;
    this.out.writeDoubleLE(v, this.o);
    this.o += 8;
    this.bits[col]! |= numberBits(v);
  }

  boolean(col: number, v: boolean): void {
    this.tag(v ? V.TRUE : V.FALSE);
    this.bits[col]! |= BIT_BOOL;
  }

  /** A text's UTF-8 bytes [from, to) of `src` (no escapes in them): TEXT, or MOMENT when it names one. */
  text(col: number, src: Uint8Array, from: number, to: number): void {
    const n = to - from;
    this.room(n + 19);
    const o = this.out;
    if (momentAt(src, from, to)) {
      o[this.o++] = MOMENT;
      o[this.o++] = (readMoment.dateOnly ? 1 : 0) | (readMoment.zoned ? 2 : 0);
      o.writeInt32LE(readMoment.days, this.o);
      o.writeDoubleLE(readMoment.ms, this.o + 4);
      this.o += 12;
      this.bits[col]! |= momentBits();
    } else {
      o[this.o++] = V.TEXT;
      this.bits[col]! |= BIT_TEXT;
    }
    this.varint(n);
    if (n < 32) for (let k = 0; k < n; k++) o[this.o + k] = src[from + k]!;
    else o.set(src.subarray(from, to), this.o);
    this.o += n;
  }

  /** A JavaScript string: TEXT or MOMENT from its UTF-8, ESCAPED (its JSON) when it holds a lone surrogate. */
  string(col: number, s: string): void {
    if (LONE_SURROGATE.test(s)) return this.json(col, V.ESCAPED, JSON.stringify(s), BIT_TEXT);
    const bytes = Buffer.from(s, 'utf8');
    this.text(col, bytes, 0, bytes.length);
  }

  /** A value kept as its JSON text (ESCAPED, NESTED). */
  json(col: number, tag: number, text: string, bits: number): void {
    const n = Buffer.byteLength(text, 'utf8');
    this.room(n + 6);
    this.out[this.o++] = tag;
    this.varint(n);
    this.o += this.out.write(text, this.o, 'utf8');
    this.bits[col]! |= bits;
  }

  /** A value as JSON.parse gives it (undefined: the row lacks the key). */
  value(col: number, v: unknown): void {
    if (v === undefined) return this.tag(V.ABSENT);
    if (v === null) return this.tag(V.NULL);
    switch (typeof v) {
      case 'boolean':
        return this.boolean(col, v);
      case 'number':
        return this.number(col, v);
      case 'string':
        return this.string(col, v);
      case 'object':
        return this.json(col, V.NESTED, JSON.stringify(v), BIT_NESTED);
      default:
        // A function or symbol (a key of a primitive's prototype): JSON leaves it out.
        return this.tag(V.ABSENT);
    }
  }
}

/** `v` as a varint of exactly five bytes at `at` (7-bit groups, every one but the last continued). */
function fixedVarint(o: Buffer, at: number, v: number): void {
  for (let k = 0; k < 5; k++, v = Math.floor(v / 128)) o[at + k] = (v & 0x7f) | (k < 4 ? 0x80 : 0);
}

/**
 * Rows parsed from a source page (a masked page, or one the byte path does not read) as one
 * fragment: each column's own value, as the staged JSON lines held it (encodeJsonLines).
 */
export function encodeValues(rows: unknown[], keys: string[]): Buffer {
  if (rows.length === 0) return Buffer.alloc(0);
  const w = new ValuesOut(keys.length, 1 << 12);
  w.begin();
  for (const r of rows) {
    // encodeJsonLines reads `(r ?? {})[key]`; own keys only, so Object.prototype's names are absent.
    const row = r ?? {};
    for (let c = 0; c < keys.length; c++) {
      const k = keys[c]!;
      w.value(c, typeof row === 'object' ? ownValue(row, k) : (Object(row) as Record<string, unknown>)[k]);
    }
    w.row();
  }
  return w.end();
}

/** Staged values of these columns: the fragment's columns are each key once. */
export const stagedKeys = (columns: Column[]): string[] => [...new Set(columns.map((c) => c.key))];

/** A fragment's rows read one at a time, each value shown as the line scanner shows a line's (scan.ts). */
export class ValuesReader implements V.ScannedRow {
  readonly kinds: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly numbers: Float64Array;
  private readonly moment: Uint8Array;
  private readonly days: Float64Array;
  private readonly ms: Float64Array;
  private b: Buffer = Buffer.alloc(0);
  private view: DataView = new DataView(new ArrayBuffer(0));
  private at = 0;
  /** Rows left in the fragment being read. */
  private left = 0;
  /** The kinds of value of every fragment read since open(), per column (the headers' bits, OR-ed). */
  readonly bits: Uint8Array;

  constructor(readonly columns: number) {
    this.kinds = new Uint8Array(columns);
    this.starts = new Int32Array(columns);
    this.ends = new Int32Array(columns);
    this.numbers = new Float64Array(columns);
    this.moment = new Uint8Array(columns);
    this.days = new Float64Array(columns);
    this.ms = new Float64Array(columns);
    this.bits = new Uint8Array(columns);
  }

  /** A piece's bytes: its fragments, read by next(). */
  open(b: Buffer): void {
    this.b = b;
    this.view = new DataView(b.buffer, b.byteOffset, b.length);
    this.at = 0;
    this.left = 0;
    this.fragmentEnd = 0;
    this.bits.fill(0);
  }

  /** Only the headers of `b`'s fragments: their bits OR-ed into `bits`; the rows they hold. */
  headers(b: Buffer): number {
    this.open(b);
    let rows = 0;
    while (this.header()) {
      rows += this.left;
      this.at = this.fragmentEnd;
    }
    this.left = 0;
    return rows;
  }

  /** Where the fragment whose header was read last ends. */
  private fragmentEnd = 0;

  private fail(): never {
    throw new StagedValuesError();
  }

  private varint(): number {
    const b = this.b;
    let v = 0;
    let scale = 1;
    for (let k = 0; k < 5; k++) {
      if (this.at >= b.length) this.fail();
      const c = b[this.at++]!;
      v += (c & 0x7f) * scale;
      if (c < 0x80) return v;
      scale *= 128;
    }
    return this.fail();
  }

  /** The next fragment's header; false at the piece's end. */
  private header(): boolean {
    if (this.at >= this.b.length) return false;
    const start = this.at;
    if (this.b[this.at++] !== MAGIC) this.fail();
    this.left = this.varint();
    this.fragmentEnd = start + this.varint();
    if (this.fragmentEnd > this.b.length || this.fragmentEnd <= start) this.fail();
    if (this.varint() !== this.columns || this.at + this.columns > this.b.length) this.fail();
    for (let c = 0; c < this.columns; c++) this.bits[c]! |= this.b[this.at + c]!;
    this.at += this.columns;
    return true;
  }

  /** The next row's values (false: the piece has no more rows). */
  next(): boolean {
    while (this.left === 0) {
      // A fragment ends exactly where its header says.
      if (this.at !== this.fragmentEnd && this.fragmentEnd !== 0) this.fail();
      if (!this.header()) return false;
    }
    this.left--;
    for (let c = 0; c < this.columns; c++) this.read(c);
    return true;
  }

  private read(c: number): void {
    const b = this.b;
    if (this.at >= b.length) this.fail();
    const t = b[this.at++]!;
    this.moment[c] = 0;
    switch (t) {
      case V.INT:
        if (this.at + 8 > b.length) this.fail();
        this.numbers[c] = this.view.getFloat64(this.at, true);
        this.at += 8;
        break;
      case V.NUMBER: {
        if (this.at + 8 > b.length) this.fail();
        const v = this.view.getFloat64(this.at, true);
        this.numbers[c] = v;
        this.at += 8;
        // A fraction shows as NUMBER_FAST, whose value the writer reads from `numbers` (a double a
        // call returns is a new heap number: a million of them for a column of amounts).
        this.kinds[c] = Number.isInteger(v) ? V.NUMBER : V.NUMBER_FAST;
        return;
      }
      case MOMENT:
        if (this.at + 13 > b.length) this.fail();
        this.moment[c] = 1 | (b[this.at]! << 1);
        this.days[c] = this.view.getInt32(this.at + 1, true);
        this.ms[c] = this.view.getFloat64(this.at + 5, true);
        this.at += 13;
        this.bytesOf(c);
        this.kinds[c] = V.TEXT;
        return;
      case V.TEXT:
      case V.ESCAPED:
      case V.NESTED:
        this.bytesOf(c);
        break;
      case V.ABSENT:
      case V.NULL:
      case V.TRUE:
      case V.FALSE:
        break;
      default:
        this.fail();
    }
    this.kinds[c] = t;
  }

  private bytesOf(c: number): void {
    const n = this.varint();
    if (this.at + n > this.b.length) this.fail();
    this.starts[c] = this.at;
    this.ends[c] = this.at += n;
  }

  momentOf(col: number): boolean {
    const m = this.moment[col]!;
    if (m === 0) return false;
    readMoment.days = this.days[col]!;
    readMoment.ms = this.ms[col]!;
    readMoment.dateOnly = (m & 2) !== 0;
    readMoment.zoned = (m & 4) !== 0;
    return true;
  }

  numberAt(col: number): number {
    return this.numbers[col]!;
  }

  decoded(col: number): unknown {
    switch (this.kinds[col]) {
      case V.ABSENT:
        return undefined;
      case V.NULL:
        return null;
      case V.TRUE:
        return true;
      case V.FALSE:
        return false;
      case V.INT:
      case V.NUMBER:
      case V.NUMBER_FAST:
        return this.numbers[col]!;
      case V.TEXT:
        return this.b.toString('utf8', this.starts[col]!, this.ends[col]!);
      default:
        return JSON.parse(this.b.toString('utf8', this.starts[col]!, this.ends[col]!));
    }
  }
}

/** A staged piece that is not the values our staging writes: the render's storage_failed. */
export class StagedValuesError extends Error {
  constructor() {
    super('not staged values');
  }
}
