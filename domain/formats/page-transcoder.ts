// What the hand-written page transcoders share (ADR 0020: CSV in csv/transcode.ts, JSON Lines in
// jsonl-transcode.ts): a source page's bytes read in place, its "total" and "data" found, each row's
// values located per column (kinds, starts, ends), and an output buffer kept between pages. What a
// type writes for a row is its own: `row()` and `skipValue()`.
import { isUtf8 } from 'node:buffer';
import type { Column } from './columns.js';
import { FLAG_ESCAPE, giveUp, JsonBytes } from './csv/json-bytes.js';

export interface ScannedPage {
  total: number;
  rows: number;
  bytes: Buffer;
}

/**
 * A type's transcoder per column list, kept for the next page (a lane reads many with the same
 * columns): the columns' key bytes are prepared once. At most 32 lists, the oldest dropped first.
 */
export function transcoderCache<T extends PageTranscoder>(make: (columns: Column[]) => T): (columns: Column[]) => T {
  const cache = new Map<string, T>();
  return (columns) => {
    // A column typed `string` is written apart (time_zone leaves it): part of the list's identity.
    const id = columns.map((c) => (c.type === 'string' ? `${c.key}\u0001` : c.key)).join('\u0000');
    let t = cache.get(id);
    if (!t) {
      if (cache.size >= 32) cache.delete(cache.keys().next().value!);
      t = make(columns);
      cache.set(id, t);
    }
    return t;
  };
}

/** The output scratch space kept between pages: a page of 1,000 ordinary rows fits. */
const SCRATCH = 1 << 18;

export abstract class PageTranscoder extends JsonBytes {
  protected readonly keys: Buffer[];
  /** Keys JSON writes as they are (no quote, backslash or control character). */
  protected readonly plain: boolean[];
  protected readonly index = new Map<string, number>();
  /** Whether the columns allow this path at all (keys unique; a key such as `constructor` is fine: `index` is a Map). */
  private readonly usable: boolean;
  protected out: Buffer = Buffer.allocUnsafe(SCRATCH);
  protected o = 0;
  /** Per column of the row being read: the kind of its value (the type's own codes), where it is. */
  protected readonly kinds: Uint8Array;
  protected readonly starts: Int32Array;
  protected readonly ends: Int32Array;
  /** The values of the row that are written as decoded text, per column. */
  protected readonly texts: string[];
  /** Whether the last key rowKey() read matched the column it guessed, byte for byte. */
  protected guessed = false;

  constructor(columns: Column[]) {
    super();
    this.keys = columns.map((c) => Buffer.from(c.key, 'utf8'));
    this.plain = columns.map((c) => !/["\\\u0000-\u001f]/.test(c.key));
    columns.forEach((c, i) => this.index.set(c.key, i));
    this.usable = columns.length > 0 && this.index.size === columns.length;
    this.kinds = new Uint8Array(columns.length);
    this.starts = new Int32Array(columns.length);
    this.ends = new Int32Array(columns.length);
    this.texts = columns.map(() => '');
  }

  /** One row object from `this.i`: its values located and its output written. */
  protected abstract row(): void;
  /** A value no column takes: scanned (and so validated) only. */
  protected abstract skipValue(): void;

  /** The page's output, with the total and row count the source gave; null when not handled here. */
  protected scan(body: Buffer): ScannedPage | null {
    if (!this.usable || !isUtf8(body)) return null;
    this.b = body;
    this.i = 0;
    this.o = 0;
    try {
      return this.page();
    } catch {
      // GiveUp, or JSON.parse refusing a value: the ordinary path says what is wrong with the page.
      return null;
    } finally {
      this.b = Buffer.alloc(0);
      // A rare huge page (up to SOURCE_MAX_PAGE_BYTES) must not leave its scratch space held by the cache.
      if (this.out.length > SCRATCH) this.out = Buffer.allocUnsafe(SCRATCH);
    }
  }

  private page(): ScannedPage {
    let total = -1;
    let rows = -1;
    this.ws();
    this.expect(0x7b);
    this.ws();
    if (this.b[this.i] !== 0x7d) {
      for (;;) {
        const key = this.topKey();
        this.ws();
        this.expect(0x3a);
        this.ws();
        if (key === 'total') total = this.total();
        else if (key === 'data') rows = rows < 0 ? this.rows() : giveUp();
        else this.skipValue();
        if (!this.anotherMember()) break;
      }
    }
    this.ws();
    if (this.i !== this.b.length || total < 0 || rows < 0) giveUp();
    return { total, rows, bytes: rows === 0 ? Buffer.alloc(0) : Buffer.from(this.out.subarray(0, this.o)) };
  }

  /** A top-level key: only "total" and "data" matter; any other comes back as ''. */
  private topKey(): string {
    const s = this.i;
    this.string();
    if (this.flags & FLAG_ESCAPE) return JSON.parse(this.b.toString('utf8', s, this.i)) as string;
    return this.i - s === 7 || this.i - s === 6 ? this.b.toString('latin1', s + 1, this.i - 1) : '';
  }

  /** After an object's member: past a comma (true, another member follows) or its closing brace (false). */
  protected anotherMember(): boolean {
    this.ws();
    if (this.b[this.i] === 0x2c) {
      this.i++;
      this.ws();
      return true;
    }
    this.expect(0x7d);
    return false;
  }

  /** "total": a whole number (anything else is left to the ordinary path's message). */
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

  /** The column a row's key names (-1: none). `guess`: rows usually list the columns in order. */
  protected rowKey(guess: number): number {
    const s = this.i;
    const want = this.keys[guess];
    // The expected key, compared in place: a plain key matches only itself and its closing quote.
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

  protected room(bytes: number): void {
    if (this.o + bytes <= this.out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.o + bytes));
    this.out.copy(bigger, 0, 0, this.o);
    this.out = bigger;
  }
}
