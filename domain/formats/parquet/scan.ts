// A staged row (one JSON line, as JSON.stringify wrote it) read in place for Parquet (ADR 0050):
// each column's value located and classified from its bytes, nothing parsed into objects or
// strings. A line this path does not read (not an object, a key with an escape, anything outside
// the grammar) answers false, and the caller parses that line with JSON.parse, as before.

/** What a column's value is in the line being read. */
export const ABSENT = 0;
export const NULL = 1;
export const TRUE = 2;
export const FALSE = 3;
/** An integer of at most 15 digits, no fraction or exponent, not -0. */
export const INT = 4;
/** Any other number (an exponent, more than 15 digits, -0). */
export const NUMBER = 5;
/** A string without escapes: starts/ends bound its bytes, the quotes excluded. */
export const TEXT = 6;
/** A string with escapes, an object or an array: starts/ends bound its JSON text. */
export const ESCAPED = 7;
export const NESTED = 8;
/** A number ±digits.digits (at most 15 digits, no exponent). */
export const NUMBER_FAST = 9;

import { momentAt, readMoment } from './dates.js';

/**
 * One row's values as the render reads them (types.ts' TypePass, parts.ts' writer): per column its
 * kind (the constants above), where its bytes are, its number; from a staged JSON line (LineScanner)
 * or from staged values (staged.ts).
 */
export interface ScannedRow {
  readonly kinds: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly numbers: Float64Array;
  /** Whether a TEXT value names a moment, then in `readMoment`. */
  momentOf(col: number): boolean;
  numberAt(col: number): number;
  decoded(col: number): unknown;
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

const isWs = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;

export class LineScanner implements ScannedRow {
  readonly kinds: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** An INT's or a NUMBER_FAST's value, computed as the number was read. */
  readonly numbers: Float64Array;
  private readonly keys: Buffer[];
  /** Keys JSON writes as they are (no quote, backslash or control character). */
  private readonly plain: boolean[];
  private readonly index = new Map<string, number>();
  private b: Buffer = Buffer.alloc(0);
  /** The line's end: nothing is read past it. */
  private to = 0;
  /** Set by str(): whether the string held an escape. */
  private escaped = false;
  /** Set by num(): the number's kind and (INT, NUMBER_FAST) value. */
  private numKind = NUMBER;
  private numValue = 0;
  /** Lines read so far; a column's moment is read once a line (momentOf), its stamp the line's number. */
  private line = 0;
  private readonly momentLine: Float64Array;
  private readonly momentFound: Uint8Array;
  private readonly momentDays: Float64Array;
  private readonly momentMs: Float64Array;
  /** Bit 1: a date alone; bit 2: it named a zone. */
  private readonly momentFlags: Uint8Array;

  /** `keys`: the columns' keys, each once. */
  constructor(keys: string[]) {
    this.keys = keys.map((k) => Buffer.from(k, 'utf8'));
    this.plain = keys.map((k) => !/["\\\u0000-\u001f]/.test(k));
    keys.forEach((k, i) => this.index.set(k, i));
    this.kinds = new Uint8Array(keys.length);
    this.starts = new Int32Array(keys.length);
    this.ends = new Int32Array(keys.length);
    this.numbers = new Float64Array(keys.length);
    this.momentLine = new Float64Array(keys.length).fill(-1);
    this.momentFound = new Uint8Array(keys.length);
    this.momentDays = new Float64Array(keys.length);
    this.momentMs = new Float64Array(keys.length);
    this.momentFlags = new Uint8Array(keys.length);
  }

  /** Reads the line [from, to) of `b`; false: the caller parses it instead. */
  scan(b: Buffer, from: number, to: number): boolean {
    this.b = b;
    this.to = to;
    this.line++;
    const kinds = this.kinds;
    for (let k = 0; k < kinds.length; k++) kinds[k] = ABSENT;
    let i = this.ws(from);
    if (b[i] !== 0x7b) return false;
    i = this.ws(i + 1);
    if (b[i] === 0x7d) return this.ws(i + 1) === to;
    for (let guess = 0; ; ) {
      if (b[i] !== 0x22) return false;
      const col = this.key(i, guess);
      if (col === -2) return false;
      i = this.ws(this.at);
      if (b[i] !== 0x3a) return false;
      i = this.ws(i + 1);
      // A repeated key: JSON.parse keeps the last value, and so does this (the slot is overwritten).
      if (!this.value(i, col)) return false;
      i = this.ws(this.at);
      const c = b[i];
      if (c === 0x7d) return this.ws(i + 1) === to;
      if (c !== 0x2c) return false;
      i = this.ws(i + 1);
      guess = col >= 0 ? col + 1 : guess + 1;
    }
  }

  /** Where a read ended (key(), value()). */
  private at = 0;

  private ws(i: number): number {
    const b = this.b;
    // Staged lines have no whitespace: one look at the next byte, most of the time.
    if (b[i]! > 0x20) return i;
    while (i < this.to && isWs(b[i])) i++;
    return i;
  }

  /** The column a key at `i` names (-1: none, -2: not readable), tried first against `guess`. */
  private key(i: number, guess: number): number {
    const b = this.b;
    const start = i + 1;
    // The expected key's bytes and then its closing quote: that key exactly (a plain key's bytes
    // hold no quote or backslash, and an escape in the line would be one).
    const k = this.keys[guess];
    if (k && this.plain[guess] && start + k.length < this.to && b[start + k.length] === 0x22) {
      let j = 0;
      while (j < k.length && k[j] === b[start + j]) j++;
      if (j === k.length) {
        this.at = start + k.length + 1;
        return guess;
      }
    }
    const end = this.str(i);
    if (end < 0 || this.escaped) return -2;
    this.at = end;
    return this.index.get(b.toString('utf8', start, end - 1)) ?? -1;
  }

  /** Past the string at `i` (at its quote): the index after its closing quote, -1 when it has none or a control character. */
  private str(i: number): number {
    const b = this.b;
    const to = this.to;
    let escaped = false;
    for (let j = i + 1; j < to; ) {
      const c = b[j]!;
      if (c === 0x22) {
        this.escaped = escaped;
        return j + 1;
      }
      if (c === 0x5c) {
        escaped = true;
        j += 2;
      } else if (c < 0x20) return -1;
      else j++;
    }
    return -1;
  }

  /** Past the number at `i` (JSON's grammar): numKind and numValue set; -1 when it is no number. */
  private num(i: number): number {
    const b = this.b;
    let j = i;
    const neg = b[j] === 0x2d;
    if (neg) j++;
    let v = 0;
    let digits = 0;
    if (b[j] === 0x30) {
      j++;
      digits = 1;
    } else if (isDigit(b[j]) && b[j] !== 0x30) {
      while (j < this.to && isDigit(b[j])) {
        v = v * 10 + (b[j++]! - 48);
        digits++;
      }
    } else return -1;
    let fraction = 0;
    if (b[j] === 0x2e && j < this.to) {
      const f = ++j;
      while (j < this.to && isDigit(b[j])) v = v * 10 + (b[j++]! - 48);
      fraction = j - f;
      if (fraction === 0) return -1;
      digits += fraction;
    }
    let exponent = false;
    if ((b[j] === 0x65 || b[j] === 0x45) && j < this.to) {
      exponent = true;
      j++;
      if (b[j] === 0x2b || b[j] === 0x2d) j++;
      const e = j;
      while (j < this.to && isDigit(b[j])) j++;
      if (j === e) return -1;
    }
    // At most 15 digits and no exponent: the digits are an exact double, and so is 10^fraction, so
    // ±v / 10^fraction is the correctly rounded value, as Number(text) is. -0 keeps its sign that way.
    if (exponent || digits > 15 || (neg && v === 0 && fraction === 0)) this.numKind = NUMBER;
    else {
      this.numKind = fraction ? NUMBER_FAST : INT;
      const q = fraction ? v / POW10[fraction]! : v;
      this.numValue = neg ? -q : q;
    }
    return j;
  }

  /** Past an object or array at `i`, its strings respected (JSON.parse validates it when it is used); -1 when unclosed. */
  private nested(i: number): number {
    const b = this.b;
    let depth = 0;
    for (let j = i; j < this.to; ) {
      const c = b[j]!;
      if (c === 0x22) {
        j = this.str(j);
        if (j < 0) return -1;
        continue;
      }
      j++;
      if (c === 0x7b || c === 0x5b) depth++;
      else if ((c === 0x7d || c === 0x5d) && --depth === 0) return j;
    }
    return -1;
  }

  private word(i: number, w: readonly number[]): number {
    for (let k = 0; k < w.length; k++) if (this.b[i + k] !== w[k] || i + k >= this.to) return -1;
    return i + w.length;
  }

  /** Reads the value at `i` into column `col`'s slot (none when col < 0); false when it is not readable. */
  private value(i: number, col: number): boolean {
    const c = this.b[i];
    let kind: number;
    let end: number;
    if (c === 0x22) {
      end = this.str(i);
      kind = this.escaped ? ESCAPED : TEXT;
    } else if (c === 0x7b || c === 0x5b) {
      end = this.nested(i);
      kind = NESTED;
    } else if (c === 0x74) {
      end = this.word(i, TRUE_BYTES);
      kind = TRUE;
    } else if (c === 0x66) {
      end = this.word(i, FALSE_BYTES);
      kind = FALSE;
    } else if (c === 0x6e) {
      end = this.word(i, NULL_BYTES);
      kind = NULL;
    } else {
      end = this.num(i);
      kind = this.numKind;
    }
    if (end < 0) return false;
    this.at = end;
    if (col < 0) return true;
    // A plain text's bytes are the value (the quotes left out); the rest keep their JSON text.
    this.kinds[col] = kind;
    this.starts[col] = kind === TEXT ? i + 1 : i;
    this.ends[col] = kind === TEXT ? end - 1 : end;
    if (kind === INT || kind === NUMBER_FAST) this.numbers[col] = this.numValue;
    return true;
  }

  /**
   * Whether a TEXT column value names a moment (momentAt of its bytes), the moment in `readMoment`:
   * read once a line however often it is asked (the type pass and the writer both ask).
   */
  momentOf(col: number): boolean {
    if (this.momentLine[col] !== this.line) {
      this.momentLine[col] = this.line;
      const found = momentAt(this.b, this.starts[col]!, this.ends[col]!);
      this.momentFound[col] = found ? 1 : 0;
      if (!found) return false;
      this.momentDays[col] = readMoment.days;
      this.momentMs[col] = readMoment.ms;
      this.momentFlags[col] = (readMoment.dateOnly ? 1 : 0) | (readMoment.zoned ? 2 : 0);
      return true;
    }
    if (!this.momentFound[col]) return false;
    readMoment.days = this.momentDays[col]!;
    readMoment.ms = this.momentMs[col]!;
    readMoment.dateOnly = (this.momentFlags[col]! & 1) !== 0;
    readMoment.zoned = (this.momentFlags[col]! & 2) !== 0;
    return true;
  }

  /** A number column value: Number(text) (computed as it was read where that is exact). */
  numberAt(col: number): number {
    const kind = this.kinds[col];
    if (kind === INT || kind === NUMBER_FAST) return this.numbers[col]!;
    return Number(this.b.toString('latin1', this.starts[col]!, this.ends[col]!));
  }

  /** The column's value as JSON.parse gives it (undefined when the line lacks the key). */
  decoded(col: number): unknown {
    const b = this.b;
    const start = this.starts[col]!;
    const end = this.ends[col]!;
    switch (this.kinds[col]) {
      case ABSENT:
        return undefined;
      case NULL:
        return null;
      case TRUE:
        return true;
      case FALSE:
        return false;
      case INT:
      case NUMBER:
      case NUMBER_FAST:
        return this.numberAt(col);
      case TEXT:
        return b.toString('utf8', start, end);
      default:
        return JSON.parse(b.toString('utf8', start, end));
    }
  }
}


const TRUE_BYTES = [0x74, 0x72, 0x75, 0x65];
const FALSE_BYTES = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL_BYTES = [0x6e, 0x75, 0x6c, 0x6c];
