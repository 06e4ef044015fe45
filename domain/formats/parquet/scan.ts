// A staged row (one JSON line, as JSON.stringify wrote it) read in place for Parquet (ADR 0050):
// each column's value located and classified from its bytes, nothing parsed into objects or
// strings. A line this path does not read (not an object, a key with an escape, anything outside
// the grammar) answers false, and the caller parses that line with JSON.parse, as before.
import { GiveUp, JsonBytes } from '../csv/json-bytes.js';

/** What a column's value is in the line being read. */
export const ABSENT = 0;
export const NULL = 1;
export const TRUE = 2;
export const FALSE = 3;
/** An integer of at most 15 digits, written as JavaScript writes it (no fraction or exponent). */
export const INT = 4;
/** Any other number (an exponent, more digits, -0, a trailing zero). */
export const NUMBER = 5;
/** A string without escapes: starts/ends bound its bytes, the quotes excluded. */
export const TEXT = 6;
/** A string with escapes, an object or an array: starts/ends bound its JSON text. */
export const ESCAPED = 7;
export const NESTED = 8;
/** A number whose text is ±digits.digits (at most 15 digits, no exponent): see numberAt(). */
export const NUMBER_FAST = 9;

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

export class LineScanner extends JsonBytes {
  readonly kinds: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  private readonly keys: Buffer[];
  private readonly index = new Map<string, number>();

  /** `keys`: the columns' keys, each once. */
  constructor(keys: string[]) {
    super();
    this.keys = keys.map((k) => Buffer.from(k, 'utf8'));
    keys.forEach((k, i) => this.index.set(k, i));
    this.kinds = new Uint8Array(keys.length);
    this.starts = new Int32Array(keys.length);
    this.ends = new Int32Array(keys.length);
  }

  /** Reads the line [from, to) of `b`; false: the caller parses it instead. */
  scan(b: Buffer, from: number, to: number): boolean {
    this.b = b;
    this.i = from;
    this.kinds.fill(ABSENT);
    try {
      this.object(to);
    } catch (err) {
      if (err instanceof GiveUp) return false;
      throw err;
    }
    const c = this.b;
    let i = this.i;
    while (i < to && (c[i] === 0x20 || c[i] === 0x09 || c[i] === 0x0d)) i++;
    return i === to;
  }

  private object(to: number): void {
    this.ws();
    this.expect(0x7b);
    this.ws();
    if (this.b[this.i] === 0x7d) {
      this.i++;
      return;
    }
    for (let guess = 0; ; guess++) {
      const col = this.key(guess);
      this.ws();
      this.expect(0x3a);
      this.ws();
      this.value(col);
      if (this.i > to) throw new GiveUp('past the line');
      // A repeated key: JSON.parse keeps the last value, and so does this (the slot is overwritten).
      if (col >= 0) guess = col;
      this.ws();
      const c = this.b[this.i++];
      if (c === 0x7d) return;
      if (c !== 0x2c) throw new GiveUp('not an object');
      this.ws();
    }
  }

  /** The column a key names (-1: none), tried first against the column after the last one read. */
  private key(guess: number): number {
    const b = this.b;
    const start = this.i + 1;
    this.string();
    if (this.flags & 1) throw new GiveUp('escaped key');
    const end = this.i - 1;
    const k = this.keys[guess];
    if (k && k.length === end - start) {
      let same = true;
      for (let j = 0; j < k.length; j++) {
        if (k[j] !== b[start + j]) {
          same = false;
          break;
        }
      }
      if (same) return guess;
    }
    return this.index.get(b.toString('utf8', start, end)) ?? -1;
  }

  private value(col: number): void {
    const b = this.b;
    const s = this.i;
    const c = b[s];
    let kind: number;
    if (c === 0x22) {
      this.string();
      kind = this.flags & 1 ? ESCAPED : TEXT;
    } else if (c === 0x7b || c === 0x5b) {
      this.skipNested();
      kind = NESTED;
    } else if (c === 0x74) {
      this.literal('true');
      kind = TRUE;
    } else if (c === 0x66) {
      this.literal('false');
      kind = FALSE;
    } else if (c === 0x6e) {
      this.literal('null');
      kind = NULL;
    } else {
      kind = this.number() ? (hasPoint(b, s, this.i) ? NUMBER_FAST : INT) : NUMBER;
    }
    if (col < 0) return;
    // A plain text's bytes are the value (the quotes left out); the rest keep their JSON text.
    this.kinds[col] = kind;
    this.starts[col] = kind === TEXT ? s + 1 : s;
    this.ends[col] = kind === TEXT ? this.i - 1 : this.i;
  }

  /** An INT column value. */
  intAt(col: number): number {
    const b = this.b;
    let at = this.starts[col]!;
    const end = this.ends[col]!;
    const neg = b[at] === 0x2d;
    if (neg) at++;
    let v = 0;
    for (; at < end; at++) v = v * 10 + (b[at]! - 48);
    return neg ? -v : v;
  }

  /**
   * A number column value: Number(text). A verbatim number with a fraction is ±digits / 10^k, both
   * exact doubles, so the division is the correctly rounded value, as Number(text) is.
   */
  numberAt(col: number): number {
    const kind = this.kinds[col];
    if (kind === INT) return this.intAt(col);
    const b = this.b;
    const start = this.starts[col]!;
    const end = this.ends[col]!;
    if (kind !== NUMBER_FAST) return Number(b.toString('latin1', start, end));
    let at = start;
    const neg = b[at] === 0x2d;
    if (neg) at++;
    let v = 0;
    let point = -1;
    for (; at < end; at++) {
      const c = b[at]!;
      if (c === 0x2e) point = at;
      else v = v * 10 + (c - 48);
    }
    const q = v / POW10[end - point - 1]!;
    return neg ? -q : q;
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


function hasPoint(b: Buffer, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (b[k] === 0x2e) return true;
  return false;
}
