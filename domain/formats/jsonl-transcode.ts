// A source page's JSON bytes straight to JSON Lines, as domain/formats/csv/transcode.ts does for
// CSV (ADR 0020): the bytes of most values are copied as they are, so the line is written without
// making an object, a string or a number for them. The output is exactly encodeJsonLines(
// JSON.parse(page).data): a number JavaScript would spell differently, a string with escapes and a
// nested value are decoded and encoded for that one value; anything else this path does not
// handle gives the page up (null) and the caller parses it the ordinary way.
// test/unit/jsonl-transcode.test.ts checks it byte for byte against the ordinary path.
import { isUtf8 } from 'node:buffer';
import type { Column } from './columns.js';
import { FLAG_ESCAPE, giveUp, JsonBytes } from './csv/json-bytes.js';

export interface TranscodedLines {
  total: number;
  rows: number;
  lines: Buffer;
}

const MISSING = 0;
const COPY = 1; // the value's bytes as they are
const TEXT = 2; // JSON.stringify of the decoded value, kept in texts[col]

const SCRATCH = 1 << 18;
const cache = new Map<string, JsonlTranscoder>();

export function jsonlTranscoderFor(columns: Column[]): JsonlTranscoder {
  const id = columns.map((c) => c.key).join('\u0000');
  let t = cache.get(id);
  if (!t) {
    if (cache.size >= 32) cache.delete(cache.keys().next().value!);
    t = new JsonlTranscoder(columns);
    cache.set(id, t);
  }
  return t;
}

export class JsonlTranscoder extends JsonBytes {
  private readonly index = new Map<string, number>();
  private readonly keys: Buffer[];
  /** Keys JSON writes as they are (no quote, backslash or control character). */
  private readonly plain: boolean[];
  /** `{"key":` / `,"key":` per column, ready to copy. */
  private readonly prefixes: Buffer[];
  private readonly usable: boolean;
  private out: Buffer = Buffer.allocUnsafe(SCRATCH);
  private o = 0;
  private readonly kinds: Uint8Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly texts: string[];
  /** Whether the last key read matched its expected column byte for byte. */
  private guessed = false;

  constructor(columns: Column[]) {
    super();
    columns.forEach((c, i) => this.index.set(c.key, i));
    this.keys = columns.map((c) => Buffer.from(c.key, 'utf8'));
    this.plain = columns.map((c) => !/["\\\u0000-\u001f]/.test(c.key));
    this.prefixes = columns.map((c, i) => Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(c.key)}:`, 'utf8'));
    this.usable = columns.length > 0 && this.index.size === columns.length && columns.every((c) => !(c.key in Object.prototype));
    this.kinds = new Uint8Array(columns.length);
    this.starts = new Int32Array(columns.length);
    this.ends = new Int32Array(columns.length);
    this.texts = columns.map(() => '');
  }

  transcode(body: Buffer): TranscodedLines | null {
    if (!this.usable || !isUtf8(body)) return null;
    this.b = body;
    this.i = 0;
    this.o = 0;
    try {
      return this.page();
    } catch {
      return null;
    } finally {
      this.b = Buffer.alloc(0);
      if (this.out.length > SCRATCH) this.out = Buffer.allocUnsafe(SCRATCH);
    }
  }

  private page(): TranscodedLines {
    let total = -1;
    let rows = -1;
    this.ws();
    this.expect(0x7b);
    this.ws();
    if (this.b[this.i] !== 0x7d) {
      for (;;) {
        const s = this.i;
        this.string();
        const key = this.flags & FLAG_ESCAPE ? (JSON.parse(this.b.toString('utf8', s, this.i)) as string) : this.b.toString('utf8', s + 1, this.i - 1);
        this.ws();
        this.expect(0x3a);
        this.ws();
        if (key === 'total') total = this.total();
        else if (key === 'data') rows = rows < 0 ? this.rows() : giveUp();
        else this.value(-1);
        if (!this.another()) break;
      }
    }
    this.ws();
    if (this.i !== this.b.length || total < 0 || rows < 0) giveUp();
    return { total, rows, lines: Buffer.from(this.out.subarray(0, this.o)) };
  }

  private another(): boolean {
    this.ws();
    if (this.b[this.i] === 0x2c) {
      this.i++;
      this.ws();
      return true;
    }
    this.expect(0x7d);
    return false;
  }

  private total(): number {
    const s = this.i;
    if (!this.number()) giveUp();
    for (let k = s; k < this.i; k++) if (this.b[k]! < 0x30) giveUp();
    const n = Number(this.b.toString('latin1', s, this.i));
    return Number.isSafeInteger(n) ? n : giveUp();
  }

  private rows(): number {
    this.expect(0x5b);
    this.ws();
    if (this.b[this.i] === 0x5d) {
      this.i++;
      return 0;
    }
    for (let n = 1; ; n++) {
      this.row();
      this.ws();
      const c = this.b[this.i++];
      if (c === 0x5d) return n;
      if (c !== 0x2c) giveUp();
      this.ws();
    }
  }

  private row(): void {
    this.kinds.fill(MISSING);
    const start = this.i;
    // In order: every member's key is the next column's, spelt without escapes.
    let inOrder = true;
    let members = 0;
    this.expect(0x7b);
    this.ws();
    if (this.b[this.i] === 0x7d) this.i++;
    else {
      for (let at = 0; ; at++) {
        const col = this.rowKey(at);
        if (col !== at || !this.guessed) inOrder = false;
        members++;
        this.ws();
        this.expect(0x3a);
        this.ws();
        this.value(col);
        if (!this.another()) break;
      }
    }
    if (inOrder && members === this.kinds.length && this.verbatim(start)) {
      this.copy(this.b, start, this.i);
      this.room(1);
      this.out[this.o++] = 0x0a;
    } else this.line();
  }

  /**
   * Whether the row's own bytes are its line: every value copied as it is, and no whitespace (the
   * row is exactly as long as its keys, colons, commas and values).
   */
  private verbatim(start: number): boolean {
    let len = 1;
    for (let col = 0; col < this.kinds.length; col++) {
      if (this.kinds[col] !== COPY) return false;
      len += this.prefixes[col]!.length + this.ends[col]! - this.starts[col]!;
    }
    return len === this.i - start;
  }

  /** The column a row's key names (-1: none); rows usually list the columns in order, so `guess` is tried first. */
  private rowKey(guess: number): number {
    const s = this.i;
    const want = this.keys[guess];
    // The expected key compared in place first: a plain key matches only itself and its closing quote.
    if (want && this.plain[guess] && this.b[s] === 0x22) {
      const len = want.length;
      let k = 0;
      while (k < len && this.b[s + 1 + k] === want[k]) k++;
      if (k === len && this.b[s + 1 + len] === 0x22) {
        this.i = s + len + 2;
        this.guessed = true;
        return guess;
      }
    }
    this.guessed = false;
    this.string();
    if (this.flags & FLAG_ESCAPE) return this.index.get(JSON.parse(this.b.toString('utf8', s, this.i)) as string) ?? -1;
    const len = this.i - s - 2;
    if (want && want.length === len) {
      let k = 0;
      while (k < len && this.b[s + 1 + k] === want[k]) k++;
      if (k === len) {
        this.guessed = true;
        return guess;
      }
    }
    return this.index.get(this.b.toString('utf8', s + 1, this.i - 1)) ?? -1;
  }

  /** Scans one value and records it for column `col` (-1: no column takes it; still validated). */
  private value(col: number): void {
    const s = this.i;
    const c = this.b[s];
    let kind = COPY;
    if (c === 0x22) {
      this.string();
      if (this.flags & FLAG_ESCAPE && !this.canonical(s)) kind = this.decoded(col, s);
    } else if (c === 0x7b || c === 0x5b) {
      this.skipNested();
      kind = this.decoded(col, s);
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) this.literal(c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null');
    else if (!this.number()) {
      kind = TEXT;
      if (col >= 0) this.texts[col] = JSON.stringify(Number(this.b.toString('latin1', s, this.i)));
    }
    if (col < 0) return;
    this.kinds[col] = kind;
    this.starts[col] = s;
    this.ends[col] = this.i;
  }

  /**
   * Whether the string just scanned (from `s`) spells its escapes as JSON.stringify does, so its
   * bytes are already what encodeJsonLines writes: only \" \\ \n \r \t \b \f.
   */
  private canonical(s: number): boolean {
    const b = this.b;
    for (let k = b.indexOf(0x5c, s); k >= 0 && k < this.i; k = b.indexOf(0x5c, k + 2)) {
      const e = b[k + 1];
      if (e !== 0x22 && e !== 0x5c && e !== 0x6e && e !== 0x72 && e !== 0x74 && e !== 0x62 && e !== 0x66) return false;
    }
    return true;
  }

  private decoded(col: number, s: number): number {
    const text = JSON.stringify(JSON.parse(this.b.toString('utf8', s, this.i)));
    if (col >= 0) this.texts[col] = text;
    return TEXT;
  }

  private line(): void {
    const { kinds, starts, ends, prefixes } = this;
    for (let col = 0; col < kinds.length; col++) {
      this.copy(prefixes[col]!, 0, prefixes[col]!.length);
      const kind = kinds[col];
      if (kind === COPY) this.copy(this.b, starts[col]!, ends[col]!);
      else if (kind === TEXT) {
        const t = this.texts[col]!;
        this.room(t.length * 3 + 2);
        this.o += this.out.write(t, this.o, 'utf8');
      } else {
        this.room(4);
        this.out[this.o++] = 0x6e;
        this.out[this.o++] = 0x75;
        this.out[this.o++] = 0x6c;
        this.out[this.o++] = 0x6c;
      }
    }
    this.room(2);
    this.out[this.o++] = 0x7d;
    this.out[this.o++] = 0x0a;
  }

  private room(bytes: number): void {
    if (this.o + bytes <= this.out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.o + bytes));
    this.out.copy(bigger, 0, 0, this.o);
    this.out = bigger;
  }

  private copy(from: Buffer, s: number, e: number): void {
    const len = e - s;
    this.room(len);
    if (len < 32) for (let k = 0; k < len; k++) this.out[this.o + k] = from[s + k]!;
    else from.copy(this.out, this.o, s, e);
    this.o += len;
  }
}
