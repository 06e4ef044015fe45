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
// encodeCsvRows(JSON.parse(page).data) on generated pages, tricky ones included. The page scan it
// shares with the JSON Lines transcoder is ../page-transcoder.ts.
import type { Column } from '../columns.js';
import { PageTranscoder, transcoderCache } from '../page-transcoder.js';
import type { TimeZone } from '../time-zone.js';
import { type CsvCells, csvCells, type CsvStyle, csvStyleId, LONE_EMPTY, RFC4180 } from './encode.js';
import { FLAG_COMMA, FLAG_ESCAPE } from './json-bytes.js';

export interface TranscodedPage {
  total: number;
  rows: number;
  csv: Buffer;
}

// Cell kinds, per column of the row being read.
const MISSING = 0;
const RAW = 1; // string without escapes or a comma: its bytes as they are
const RAW_COMMA = 2; // the same, quoted (it holds the delimiter)
const DECODE = 3; // decoded and encoded as encodeCsvRows does: escapes, formula starts, objects, arrays
const VERBATIM = 4; // a number or true/false written as it is spelled
const NUMBER = 5; // a number whose JavaScript spelling may differ (String(Number(text)))
const EMPTY = 6; // null
const WALL = 7; // a zoned date-time as wall-clock time (time_zone): ASCII no longer than its JSON text

const byStyle = new Map<string, (columns: Column[]) => CsvTranscoder>();

/** The transcoder of a column list and style, kept for the next page (a lane reads many with the same columns). */
export function transcoderFor(columns: Column[], style: CsvStyle = RFC4180): CsvTranscoder {
  const id = csvStyleId(style);
  let cache = byStyle.get(id);
  if (!cache) {
    if (byStyle.size >= 16) byStyle.clear();
    cache = transcoderCache((cols) => new CsvTranscoder(cols, style));
    byStyle.set(id, cache);
  }
  return cache(columns);
}

/** One reusable transcoder per column list and style: the columns' key bytes are prepared once. */
export class CsvTranscoder extends PageTranscoder {
  private readonly cells: CsvCells;
  /** The task's time_zone (null: none), kept here so a string cell checks one field. */
  private readonly zone: TimeZone | null;
  /** LF only (csv_line_ending lf), else CR LF. */
  private readonly lf: boolean;
  /** Per column: whether time_zone may move its text (not for a column the template types `string`). */
  private readonly shifts: boolean[];

  constructor(columns: Column[], style: CsvStyle = RFC4180) {
    super(columns);
    this.cells = csvCells(style);
    this.sep = this.cells.sepByte;
    this.zone = this.cells.zone;
    this.lf = this.cells.eol === '\n';
    this.shifts = columns.map((c) => c.type !== 'string');
  }

  /** Room the row being written may still need for its copied cells. */
  private reserve = 0;
  /** The last DECODE cell decoded. */
  private text = '';

  /** The page as CSV rows, with the total and row count the source gave; null when not handled here. */
  transcode(body: Buffer): TranscodedPage | null {
    const page = this.scan(body);
    return page && { total: page.total, rows: page.rows, csv: page.bytes };
  }

  /** One row object: each column's value located, then the CSV line written. */
  protected row(): void {
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
        const kind = this.value(col >= 0, col >= 0 && this.shifts[col]!);
        if (col >= 0) {
          kinds[col] = kind;
          starts[col] = s;
          ends[col] = this.i;
          if (kind === DECODE || kind === WALL) this.texts[col] = this.text;
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

  /**
   * Scans one value, returns its kind; `used`: whether a column takes it (else only validated);
   * `zoned`: whether time_zone may move its text.
   */
  private value(used: boolean, zoned = false): number {
    const c = this.b[this.i];
    if (c === 0x22) {
      const s = this.i;
      this.string();
      // Decoded (so validated) even when no column takes it, or a later duplicate key replaces it.
      if (this.flags & FLAG_ESCAPE) return this.decoded(s, true, zoned);
      if (this.i - s === 2) return EMPTY;
      const first = this.b[s + 1]!;
      // = + - @ (tab, CR and LF cannot appear raw), and the full-width ＋ － ＝ ＠ (EF BC 8B/8D/9D/A0).
      if (first === 0x3d || first === 0x2b || first === 0x2d || first === 0x40) return this.decoded(s, used, zoned);
      if (first === 0xef && this.b[s + 2] === 0xbc) {
        const t = this.b[s + 3];
        if (t === 0x8b || t === 0x8d || t === 0x9d || t === 0xa0) return this.decoded(s, used, zoned);
      }
      // With a time_zone, a text shaped like yyyy-mm-dd… is looked at as a date-time (time-zone.ts).
      if (this.zone !== null && this.i - s >= 19 && this.b[s + 5] === 0x2d && used && zoned) return this.zoned(s);
      return this.flags & FLAG_COMMA ? RAW_COMMA : RAW;
    }
    if (c === 0x7b || c === 0x5b) {
      const s = this.i;
      this.skipNested();
      this.text = this.cells.text(JSON.stringify(JSON.parse(this.b.toString('utf8', s, this.i))));
      return DECODE;
    }
    if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.literal(c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null');
      return c === 0x6e ? EMPTY : VERBATIM;
    }
    return this.number() ? VERBATIM : NUMBER;
  }

  /** A string cell as encodeCsvRows writes it, kept in `text` for the row's line. */
  private decoded(s: number, needed: boolean, zoned: boolean): number {
    if (!needed) return DECODE;
    const text = JSON.parse(this.b.toString('utf8', s, this.i)) as string;
    this.text = zoned ? this.cells.source(text) : this.cells.text(text);
    return DECODE;
  }

  /** A string without escapes that may be a zoned date-time: its wall-clock text, else its bytes. */
  private zoned(s: number): number {
    const wall = this.zone!.wallClock(this.b.toString('latin1', s + 1, this.i - 1));
    if (wall === null) return this.flags & FLAG_COMMA ? RAW_COMMA : RAW;
    this.text = wall;
    return WALL;
  }

  protected skipValue(): void {
    this.value(false);
  }

  /** The row's CSV line from the located values. */
  private line(): void {
    const { kinds, starts, ends, b, sep } = this;
    const lineStart = this.o;
    for (let col = 0; col < kinds.length; col++) {
      if (col > 0) this.out[this.o++] = sep;
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
      else if (kind === WALL) this.ascii(this.texts[col]!);
      else if (kind === NUMBER) this.write(String(Number(b.toString('latin1', s, e))));
    }
    // A lone empty field is `""`, never a blank line (LONE_EMPTY in encode.ts).
    if (this.o === lineStart && kinds.length === 1) this.write(LONE_EMPTY);
    if (!this.lf) this.out[this.o++] = 0x0d;
    this.out[this.o++] = 0x0a;
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

  /** ASCII text no longer than the JSON it came from (room already made by row()), without a native call. */
  private ascii(s: string): void {
    const { out } = this;
    for (let k = 0; k < s.length; k++) out[this.o + k] = s.charCodeAt(k);
    this.o += s.length;
  }

  private write(s: string): void {
    this.room(s.length * 3 + this.reserve);
    this.o += this.out.write(s, this.o, 'utf8');
  }
}
