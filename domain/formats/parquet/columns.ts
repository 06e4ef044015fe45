// One row group's values of one column, kept in typed buffers as Parquet stores them (ADR 0050):
// 8 bytes an int64, double or timestamp, 4 a date, a byte a boolean, and text as its UTF-8 bytes
// with an offset per value. Nothing is boxed and nothing is encoded twice: the page is the buffer.
import { toJson } from 'hyparquet/src/utils.js';
import type { Kind } from './types.js';

const START = 1024;
const TWO_32 = 4_294_967_296;

/** A buffer twice as big, the first `used` bytes kept. */
function grown<T extends Uint8Array | Int32Array | Float64Array>(buf: T, make: (n: number) => T, need: number): T {
  let n = buf.length * 2;
  while (n < need) n *= 2;
  const next = make(n);
  next.set(buf);
  return next;
}

export type Physical = 'INT64' | 'DOUBLE' | 'INT32' | 'BOOLEAN' | 'BYTE_ARRAY';

export const physicalOf = (kind: Kind): Physical =>
  kind === 'int64' || kind === 'timestamp' || kind === 'timestamp_utc' ? 'INT64' : kind === 'double' ? 'DOUBLE' : kind === 'date' ? 'INT32' : kind === 'boolean' ? 'BOOLEAN' : 'BYTE_ARRAY';

/**
 * A column's values in one row group. `defined[i]` is 1 for a value, 0 for null; the values of the
 * non-null rows sit one after another (Parquet stores no slot for a null).
 */
export class ColumnValues {
  readonly physical: Physical;
  /** Rows so far and values so far (rows less nulls). */
  rows = 0;
  count = 0;
  defined = new Uint8Array(START);
  /** INT64 (as two int32 halves, little-endian), DOUBLE, INT32 and BOOLEAN values. */
  private words = new Int32Array(START * 2);
  private doubles = new Float64Array(this.words.buffer);
  /** BYTE_ARRAY: the UTF-8 bytes, and where each value ends (value i is bytes[ends[i-1], ends[i])). */
  bytes = Buffer.allocUnsafe(START * 16);
  ends = new Int32Array(START);
  used = 0;
  /** Numeric bounds of the group (int64 kept exact: a BigInt once a value passes 2^53). */
  min = Infinity;
  max = -Infinity;
  private bigMin: bigint | null = null;
  private bigMax: bigint | null = null;

  constructor(readonly kind: Kind) {
    this.physical = physicalOf(kind);
  }

  reset(): void {
    this.rows = this.count = this.used = 0;
    this.min = Infinity;
    this.max = -Infinity;
    this.bigMin = this.bigMax = null;
  }

  private row(isDefined: 0 | 1): void {
    if (this.rows === this.defined.length) this.defined = grown(this.defined, (n) => new Uint8Array(n), this.rows + 1);
    this.defined[this.rows++] = isDefined;
  }

  private slot(words: number): number {
    const at = this.count * words;
    if (at + words > this.words.length) {
      this.words = grown(this.words, (n) => new Int32Array(n), at + words);
      this.doubles = new Float64Array(this.words.buffer);
    }
    this.count++;
    return at;
  }

  addNull(): void {
    this.row(0);
  }

  /** An integer JavaScript holds exactly (|v| < 2^53): an int64 or a timestamp's milliseconds. */
  addSafeInt(v: number): void {
    this.row(1);
    const at = this.slot(2);
    // ToUint32 is the value modulo 2^32 (two's complement for a negative), the rest its high word.
    this.words[at] = v >>> 0;
    this.words[at + 1] = Math.floor(v / TWO_32);
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  addBigInt(v: bigint): void {
    if (v >= -9_007_199_254_740_991n && v <= 9_007_199_254_740_991n) return this.addSafeInt(Number(v));
    this.row(1);
    const at = this.slot(2);
    this.words[at] = Number(BigInt.asUintN(32, v)) | 0;
    this.words[at + 1] = Number(BigInt.asIntN(32, v >> 32n));
    if (this.bigMin === null || v < this.bigMin) this.bigMin = v;
    if (this.bigMax === null || v > this.bigMax) this.bigMax = v;
  }

  addDouble(v: number): void {
    this.row(1);
    const at = this.slot(2);
    this.doubles[at >> 1] = v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  addInt32(v: number): void {
    this.row(1);
    this.words[this.slot(1)] = v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }

  addBoolean(v: boolean): void {
    this.row(1);
    this.words[this.slot(1)] = v ? 1 : 0;
  }

  /** Text's UTF-8 bytes copied from a buffer as they are (a JSON string without escapes). */
  addUtf8(src: Uint8Array, from: number, to: number): void {
    this.row(1);
    const n = to - from;
    this.room(n);
    // Short text byte by byte: a native copy's call costs more than the few bytes it moves.
    if (n < 48) {
      const dst = this.bytes;
      for (let k = 0, at = this.used; k < n; k++) dst[at + k] = src[from + k]!;
    } else this.bytes.set(src.subarray(from, to), this.used);
    this.endValue(n);
  }

  /**
   * A JSON string's text (its bytes [from, to) between the quotes, escapes in them) as its UTF-8
   * bytes: JSON.parse's value, unescaped from the bytes. False, nothing added, when it holds a \u
   * escape (a surrogate's rules are JSON.parse's and Buffer's to keep).
   */
  addEscaped(src: Uint8Array, from: number, to: number): boolean {
    this.room(to - from);
    const dst = this.bytes;
    let at = this.used;
    for (let k = from; k < to; k++) {
      let c = src[k]!;
      if (c === 0x5c) {
        const e = src[++k];
        c = e === 0x6e ? 0x0a : e === 0x74 ? 0x09 : e === 0x72 ? 0x0d : e === 0x62 ? 0x08 : e === 0x66 ? 0x0c : e === 0x22 || e === 0x5c || e === 0x2f ? e : -1;
        if (c < 0) return false;
      }
      dst[at++] = c;
    }
    this.row(1);
    this.endValue(at - this.used);
    return true;
  }

  addText(s: string): void {
    this.row(1);
    this.room(s.length * 3);
    this.endValue(this.bytes.write(s, this.used, 'utf8'));
  }

  private room(n: number): void {
    if (this.used + n > this.bytes.length) this.bytes = grown(this.bytes, (k) => Buffer.allocUnsafe(k), this.used + n);
    if (this.count === this.ends.length) this.ends = grown(this.ends, (k) => new Int32Array(k), this.count + 1);
  }

  private endValue(n: number): void {
    this.used += n;
    this.ends[this.count++] = this.used;
  }

  /**
   * One converted value (types.ts `converter`: null, a string, a boolean, a bigint for int64 and
   * timestamps, a number for doubles and dates, an object or array for JSON).
   */
  addValue(v: unknown): void {
    if (v === null || v === undefined) return this.addNull();
    switch (this.kind) {
      case 'string':
        return this.addText(v as string);
      case 'json':
        // As hyparquet-writer wrote it: toJson keeps an own "__proto__" key (patches/).
        return this.addText(JSON.stringify(toJson(v)));
      case 'boolean':
        return this.addBoolean(v as boolean);
      case 'double':
        return this.addDouble(v as number);
      case 'date':
        return this.addInt32(v as number);
      default:
        return typeof v === 'number' ? this.addSafeInt(v) : this.addBigInt(v as bigint);
    }
  }

  /** The fixed-width values as their little-endian bytes (the PLAIN encoding of INT64, DOUBLE, INT32). */
  fixedBytes(): Buffer {
    const width = this.physical === 'INT32' ? 4 : 8;
    return Buffer.from(this.words.buffer, this.words.byteOffset, this.count * width);
  }

  /** BOOLEAN values (0 or 1 each). */
  booleans(): Int32Array {
    return this.words.subarray(0, this.count);
  }

  /** The group's bounds in the value's own domain (what hyparquet-writer's statistics take), or none. */
  bounds(): { min: number | bigint; max: number | bigint } | null {
    if (this.count === 0 || this.physical === 'BYTE_ARRAY' || this.physical === 'BOOLEAN') return null;
    // Parquet's rule for a zero bound: the minimum written as -0, the maximum as +0.
    if (this.physical === 'DOUBLE') return { min: this.min === 0 ? -0 : this.min, max: this.max === 0 ? 0 : this.max };
    if (this.physical === 'INT32') return { min: this.min, max: this.max };
    const lo = [this.min === Infinity ? null : BigInt(this.min), this.bigMin].filter((x): x is bigint => x !== null);
    const hi = [this.max === -Infinity ? null : BigInt(this.max), this.bigMax].filter((x): x is bigint => x !== null);
    return { min: lo.reduce((a, b) => (b < a ? b : a)), max: hi.reduce((a, b) => (b > a ? b : a)) };
  }
}
