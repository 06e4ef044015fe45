// A source page's JSON bytes straight to JSON Lines, as domain/formats/csv/transcode.ts does for
// CSV (ADR 0020): the bytes of most values are copied as they are, so the line is written without
// making an object, a string or a number for them. The output is exactly encodeJsonLines(
// JSON.parse(page).data): a number JavaScript would spell differently, a string with escapes and a
// nested value are decoded and encoded for that one value; anything else this path does not
// handle gives the page up (null) and the caller parses it the ordinary way.
// test/unit/jsonl-transcode.test.ts checks it byte for byte against the ordinary path.
import type { Column } from './columns.js';
import { FLAG_ESCAPE } from './csv/json-bytes.js';
import { PageTranscoder, transcoderCache } from './page-transcoder.js';

export interface TranscodedLines {
  total: number;
  rows: number;
  lines: Buffer;
}

const MISSING = 0;
const COPY = 1; // the value's bytes as they are
const TEXT = 2; // JSON.stringify of the decoded value, kept in texts[col]

/** The transcoder of a column list, kept for the next page. */
export const jsonlTranscoderFor = transcoderCache((columns) => new JsonlTranscoder(columns));

export class JsonlTranscoder extends PageTranscoder {
  /** `{"key":` / `,"key":` per column, ready to copy. */
  private readonly prefixes: Buffer[];

  constructor(columns: Column[]) {
    super(columns);
    this.prefixes = columns.map((c, i) => Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(c.key)}:`, 'utf8'));
  }

  transcode(body: Buffer): TranscodedLines | null {
    const page = this.scan(body);
    return page && { total: page.total, rows: page.rows, lines: page.bytes };
  }

  protected skipValue(): void {
    this.value(-1);
  }

  protected row(): void {
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
        if (!this.anotherMember()) break;
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

  private copy(from: Buffer, s: number, e: number): void {
    const len = e - s;
    this.room(len);
    if (len < 32) for (let k = 0; k < len; k++) this.out[this.o + k] = from[s + k]!;
    else from.copy(this.out, this.o, s, e);
    this.o += len;
  }
}
