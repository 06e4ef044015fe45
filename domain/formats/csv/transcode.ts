// A source page's JSON bytes straight to CSV bytes, for the plain pages nearly every source sends:
// an object with "total" and "data", rows of flat objects. The bytes of most cells are copied as
// they are, so no string, object or number is made for them. Anything this path does not handle
// exactly as JSON.parse + encodeCsvRows would (escapes in keys it cannot match, nested values,
// numbers whose JavaScript spelling differs, formula starts, invalid JSON) is either decoded for that
// one cell, or the whole page is given up (null) and the caller parses it the ordinary way.
//
// Why hand-written (ADR 0020): JSON.parse, its UTF-8 decode and the encoding of the objects made
// were ~55 % of the CPU of a CSV export (docs/performance.md); on the benchmark's pages this path
// costs about a third of that. test/unit/csv-transcode.test.ts checks it byte for byte against
// encodeCsvRows(JSON.parse(page).data) on generated pages, tricky ones included.
import { isUtf8 } from 'node:buffer';
import type { Column } from '../columns.js';
import { textCell } from './encode.js';
import { FLAG_COMMA, FLAG_ESCAPE, giveUp, JsonBytes } from './json-bytes.js';

export interface TranscodedPage {
  total: number;
  rows: number;
  csv: Buffer;
}

// Cell kinds, per column of the row being read.
const MISSING = 0;
const RAW = 1; // string without escapes or a comma: its bytes as they are
const RAW_COMMA = 2; // the same, quoted
const DECODE = 3; // decoded and encoded as encodeCsvRows does: escapes, formula starts, objects, arrays
const VERBATIM = 4; // a number or true/false written as it is spelled
const NUMBER = 5; // a number whose JavaScript spelling may differ (String(Number(text)))
const EMPTY = 6; // null


const cache = new Map<string, CsvTranscoder>();
/** The output scratch space kept between pages: a page of 1,000 ordinary rows fits. */
const SCRATCH = 1 << 18;

/** The transcoder of a column list, kept for the next page (a lane reads many with the same columns). */
export function transcoderFor(columns: Column[]): CsvTranscoder {
  const id = columns.map((c) => c.key).join('\u0000');
  let t = cache.get(id);
  if (!t) {
    if (cache.size >= 32) cache.delete(cache.keys().next().value!);
    t = new CsvTranscoder(columns);
    cache.set(id, t);
  }
  return t;
}

/** One reusable transcoder per column list: the columns' key bytes are prepared once. */
export class CsvTranscoder extends JsonBytes {
  private readonly keys: Buffer[];
  /** Keys JSON writes as they are (no quote, backslash or control character). */
  private readonly plain: boolean[];
  private readonly index = new Map<string, number>();
  /** Whether the columns allow this path at all (keys unique, none inherited from Object.prototype). */
  private readonly usable: boolean;
  private out: Buffer = Buffer.allocUnsafe(SCRATCH);
  private o = 0;
  /** Room the row being written may still need for its copied cells. */
  private reserve = 0;
  private readonly kinds: Uint8Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  /** The DECODE cells of the row being read, and the last one decoded. */
  private readonly texts: string[];
  private text = '';

  constructor(columns: Column[]) {
    super();
    this.keys = columns.map((c) => Buffer.from(c.key, 'utf8'));
    this.plain = columns.map((c) => !/["\\\u0000-\u001f]/.test(c.key));
    columns.forEach((c, i) => this.index.set(c.key, i));
    this.usable = columns.length > 0 && this.index.size === columns.length && columns.every((c) => !(c.key in Object.prototype));
    this.kinds = new Uint8Array(columns.length);
    this.starts = new Int32Array(columns.length);
    this.ends = new Int32Array(columns.length);
    this.texts = columns.map(() => '');
  }

  /** The page as CSV rows, with the total and row count the source gave; null when not handled here. */
  transcode(body: Buffer): TranscodedPage | null {
    if (!this.usable || !isUtf8(body)) return null;
    this.b = body;
    this.i = 0;
    this.o = 0;
    try {
      return this.page();
    } catch {
      // GiveUp, or JSON.parse refusing a cell: the ordinary path says what is wrong with the page.
      return null;
    } finally {
      this.b = Buffer.alloc(0);
      // A rare huge page (up to SOURCE_MAX_PAGE_BYTES) must not leave its scratch space held by the cache.
      if (this.out.length > SCRATCH) this.out = Buffer.allocUnsafe(SCRATCH);
    }
  }

  private page(): TranscodedPage {
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
    return { total, rows, csv: rows === 0 ? Buffer.alloc(0) : Buffer.from(this.out.subarray(0, this.o)) };
  }

  /** After an object's member: past a comma (true, another member follows) or its closing brace (false). */
  private anotherMember(): boolean {
    this.ws();
    if (this.b[this.i] === 0x2c) {
      this.i++;
      this.ws();
      return true;
    }
    this.expect(0x7d);
    return false;
  }

  /** A top-level key: only "total" and "data" matter; any other comes back as ''. */
  private topKey(): string {
    const s = this.i;
    this.string();
    if (this.flags & FLAG_ESCAPE) return JSON.parse(this.b.toString('utf8', s, this.i)) as string;
    return this.i - s === 7 || this.i - s === 6 ? this.b.toString('latin1', s + 1, this.i - 1) : '';
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

  /** One row object: each column's value located, then the CSV line written. */
  private row(): void {
    const { kinds, starts, ends, keys } = this;
    kinds.fill(MISSING);
    const rowStart = this.i;
    this.expect(0x7b);
    this.ws();
    if (this.b[this.i] === 0x7d) this.i++;
    else {
      for (let at = 0; ; at++) {
        const col = this.rowKey(at < keys.length ? at : 0);
        this.ws();
        this.expect(0x3a);
        this.ws();
        const s = this.i;
        const kind = this.value(col >= 0);
        if (col >= 0) {
          kinds[col] = kind;
          starts[col] = s;
          ends[col] = this.i;
          if (kind === DECODE) this.texts[col] = this.text;
        }
        if (!this.anotherMember()) break;
      }
    }
    // A line of copied cells is never longer than the row's JSON (+ CRLF and an empty row's commas);
    // cells written as text check their own room.
    this.reserve = this.i - rowStart + kinds.length + 2;
    this.room(this.reserve);
    this.line();
  }

  /** The column a row's key names (-1: none). `guess`: rows usually list the columns in order. */
  private rowKey(guess: number): number {
    const s = this.i;
    // The expected key, compared in place: a plain key (no quote, backslash or control character)
    // matches only itself followed by the closing quote.
    const want = this.keys[guess]!;
    if (this.plain[guess] && this.b[s] === 0x22) {
      const b = this.b;
      const len = want.length;
      let k = 0;
      while (k < len && b[s + 1 + k] === want[k]) k++;
      if (k === len && b[s + 1 + len] === 0x22) {
        this.i = s + len + 2;
        return guess;
      }
    }
    this.string();
    if (this.flags & FLAG_ESCAPE) return this.index.get(JSON.parse(this.b.toString('utf8', s, this.i)) as string) ?? -1;
    const key = this.keys[guess]!;
    const len = this.i - s - 2;
    if (len === key.length) {
      let k = 0;
      while (k < len && this.b[s + 1 + k] === key[k]) k++;
      if (k === len) return guess;
    }
    return this.index.get(this.b.toString('utf8', s + 1, this.i - 1)) ?? -1;
  }

  /** Scans one value, returns its kind; `used`: whether a column takes it (else only validated). */
  private value(used: boolean): number {
    const c = this.b[this.i];
    if (c === 0x22) {
      const s = this.i;
      this.string();
      // Decoded (so validated) even when no column takes it, or a later duplicate key replaces it.
      if (this.flags & FLAG_ESCAPE) return this.decoded(s, true);
      if (this.i - s === 2) return EMPTY;
      const first = this.b[s + 1]!;
      // = + - @ (tab, CR and LF cannot appear raw), and the full-width ＋ － ＝ ＠ (EF BC 8B/8D/9D/A0).
      if (first === 0x3d || first === 0x2b || first === 0x2d || first === 0x40) return this.decoded(s, used);
      if (first === 0xef && this.b[s + 2] === 0xbc) {
        const t = this.b[s + 3];
        if (t === 0x8b || t === 0x8d || t === 0x9d || t === 0xa0) return this.decoded(s, used);
      }
      return this.flags & FLAG_COMMA ? RAW_COMMA : RAW;
    }
    if (c === 0x7b || c === 0x5b) {
      const s = this.i;
      this.skipNested();
      this.text = textCell(JSON.stringify(JSON.parse(this.b.toString('utf8', s, this.i))));
      return DECODE;
    }
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.literal(c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null');
      return c === 0x6e ? EMPTY : VERBATIM;
    }
    return this.number() ? VERBATIM : NUMBER;
  }

  /** A string cell as encodeCsvRows writes it, kept in `text` for the row's line. */
  private decoded(s: number, needed: boolean): number {
    if (needed) this.text = textCell(JSON.parse(this.b.toString('utf8', s, this.i)) as string);
    return DECODE;
  }

  private skipValue(): void {
    this.value(false);
  }

  /** The row's CSV line from the located values. */
  private line(): void {
    const { kinds, starts, ends, b } = this;
    for (let col = 0; col < kinds.length; col++) {
      if (col > 0) this.out[this.o++] = 0x2c;
      const kind = kinds[col]!;
      const s = starts[col]!;
      const e = ends[col]!;
      if (kind === RAW) this.copy(s + 1, e - 1);
      else if (kind === VERBATIM) this.copy(s, e);
      else if (kind === RAW_COMMA) {
        this.out[this.o++] = 0x22;
        this.copy(s + 1, e - 1);
        this.out[this.o++] = 0x22;
      } else if (kind === DECODE) this.write(this.texts[col]!);
      else if (kind === NUMBER) this.write(String(Number(b.toString('latin1', s, e))));
    }
    this.out[this.o++] = 0x0d;
    this.out[this.o++] = 0x0a;
  }

  private room(bytes: number): void {
    if (this.o + bytes <= this.out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.o + bytes));
    this.out.copy(bigger, 0, 0, this.o);
    this.out = bigger;
  }

  /** Copies bytes of the page (room already made by row()). */
  private copy(s: number, e: number): void {
    const len = e - s;
    const { out, b } = this;
    // Short cells (most) are cheaper copied here than through a native call.
    if (len < 32) for (let k = 0; k < len; k++) out[this.o + k] = b[s + k]!;
    else b.copy(out, this.o, s, e);
    this.o += len;
  }

  private write(s: string): void {
    this.room(s.length * 3 + this.reserve);
    this.o += this.out.write(s, this.o, 'utf8');
  }
}
