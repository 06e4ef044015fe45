// A source page's JSON bytes straight to a Parquet export's staged values (staged.ts; ADR 0056),
// as the JSON Lines transcoder (../jsonl-transcode.ts) reads them: each row's values located per
// column, and each written by its tag: a plain text's bytes as they are (and whether it names a
// moment, read from them), a number valued from its digits, a text with escapes unescaped, a
// nested value as JSON.stringify spells it. The output is exactly encodeValues(JSON.parse(page).
// data) (test/unit/parquet-staged.test.ts); a page this path does not read gives up (null) and
// the caller parses it.
import type { Column } from '../columns.js';
import { FLAG_ESCAPE } from '../csv/json-bytes.js';
import { PageTranscoder, transcoderCache } from '../page-transcoder.js';
import * as V from './scan.js';
import { BIT_NESTED, stagedKeys, ValuesOut } from './staged.js';

export interface TranscodedValues {
  total: number;
  rows: number;
  values: Buffer;
}

const MISSING = 0;
const PLAIN = 1; // a string without escapes: its bytes between the quotes
const ESCAPES = 2; // a string with escapes: unescaped into the output
const NUMBER = 3;
const LITERAL_TRUE = 4;
const LITERAL_FALSE = 5;
const LITERAL_NULL = 6;
const DECODED = 7; // JSON.parse's value, kept in `decodedValues`

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/** The transcoder of a column list (each key once), kept for the next page. */
export const valuesTranscoderFor = transcoderCache((columns) => new ValuesTranscoder(columns));

export class ValuesTranscoder extends PageTranscoder {
  private readonly w: ValuesOut;
  private readonly values: Float64Array;
  private readonly decodedValues: unknown[];

  constructor(columns: Column[]) {
    // Each key once (a template may repeat one): the staged values' columns.
    const keys = stagedKeys(columns);
    super(keys.map((key) => ({ key, title: key })));
    this.w = new ValuesOut(keys.length);
    this.values = new Float64Array(keys.length);
    this.decodedValues = keys.map(() => undefined);
  }

  transcode(body: Buffer): TranscodedValues | null {
    this.w.begin();
    const page = this.scan(body);
    return page && { total: page.total, rows: page.rows, values: this.w.end() };
  }

  protected skipValue(): void {
    this.value(-1);
  }

  protected row(): void {
    this.kinds.fill(MISSING);
    this.expect(0x7b);
    this.ws();
    if (this.b[this.i] === 0x7d) this.i++;
    else {
      for (let at = 0; ; at++) {
        const col = this.rowKey(at);
        this.ws();
        this.expect(0x3a);
        this.ws();
        this.value(col);
        if (!this.anotherMember()) break;
      }
    }
    this.write();
  }

  /** Scans one value and records it for column `col` (-1: no column takes it; still validated). */
  private value(col: number): void {
    const s = this.i;
    const c = this.b[s];
    let kind: number;
    if (c === 0x22) {
      this.string();
      kind = this.flags & FLAG_ESCAPE ? (this.simpleEscapes(s) ? ESCAPES : this.decode(col, s)) : PLAIN;
    } else if (c === 0x7b || c === 0x5b) {
      this.skipNested();
      kind = this.decode(col, s);
    } else if (c === 0x74) {
      this.literal('true');
      kind = LITERAL_TRUE;
    } else if (c === 0x66) {
      this.literal('false');
      kind = LITERAL_FALSE;
    } else if (c === 0x6e) {
      this.literal('null');
      kind = LITERAL_NULL;
    } else {
      this.number();
      kind = NUMBER;
      if (col >= 0) this.values[col] = this.valued(s, this.i);
    }
    if (col < 0) return;
    this.kinds[col] = kind;
    this.starts[col] = s;
    this.ends[col] = this.i;
  }

  /**
   * The number [s, e) (JSON's grammar, checked by number()): at most 15 digits and no exponent
   * are an exact double, and so is 10^fraction, so ±digits / 10^fraction is the correctly rounded
   * value, as Number(text) is; anything else is Number(text).
   */
  private valued(s: number, e: number): number {
    const b = this.b;
    let j = s;
    const neg = b[j] === 0x2d;
    if (neg) j++;
    let v = 0;
    let digits = 0;
    let fraction = 0;
    for (; j < e; j++) {
      const d = b[j]! - 48;
      if (d >= 0 && d <= 9) {
        v = v * 10 + d;
        digits++;
        if (fraction > 0) fraction++;
      } else if (b[j] === 0x2e) fraction = 1;
      else return Number(b.toString('latin1', s, e));
    }
    if (digits > 15) return Number(b.toString('latin1', s, e));
    const q = fraction > 1 ? v / POW10[fraction - 1]! : v;
    return neg ? -q : q;
  }

  /** Whether the string just scanned (from `s`) has only escapes unescaped here: \" \\ \/ \n \r \t \b \f. */
  private simpleEscapes(s: number): boolean {
    const b = this.b;
    for (let k = b.indexOf(0x5c, s); k >= 0 && k < this.i; k = b.indexOf(0x5c, k + 2)) {
      const e = b[k + 1];
      if (e !== 0x22 && e !== 0x5c && e !== 0x2f && e !== 0x6e && e !== 0x72 && e !== 0x74 && e !== 0x62 && e !== 0x66) return false;
    }
    return true;
  }

  /** JSON.parse of the value just scanned (a nested one, or a string with \u escapes): it validates it too. */
  private decode(col: number, s: number): number {
    const v: unknown = JSON.parse(this.b.toString('utf8', s, this.i));
    if (col >= 0) this.decodedValues[col] = v;
    return DECODED;
  }

  /** The row's record: every column's value, by its tag. */
  private write(): void {
    const { w, kinds, starts, ends, b } = this;
    for (let col = 0; col < kinds.length; col++) {
      switch (kinds[col]) {
        case PLAIN:
          w.text(col, b, starts[col]! + 1, ends[col]! - 1);
          break;
        case NUMBER:
          w.number(col, this.values[col]!);
          break;
        case ESCAPES:
          this.unescaped(col, starts[col]! + 1, ends[col]! - 1);
          break;
        case LITERAL_TRUE:
          w.boolean(col, true);
          break;
        case LITERAL_FALSE:
          w.boolean(col, false);
          break;
        case LITERAL_NULL:
          w.tag(V.NULL);
          break;
        case DECODED: {
          const v = this.decodedValues[col];
          this.decodedValues[col] = undefined;
          if (typeof v === 'string') w.string(col, v);
          else w.json(col, V.NESTED, JSON.stringify(v), BIT_NESTED);
          break;
        }
        default:
          w.tag(V.ABSENT);
      }
    }
    w.row();
  }

  /** A string's bytes [from, to) with simple escapes, unescaped (into scratch, then as a text). */
  private unescaped(col: number, from: number, to: number): void {
    const b = this.b;
    const tmp = this.scratch.length >= to - from ? this.scratch : (this.scratch = Buffer.allocUnsafe(2 * (to - from)));
    let n = 0;
    for (let k = from; k < to; k++) {
      let c = b[k]!;
      if (c === 0x5c) {
        const e = b[++k]!;
        c = e === 0x6e ? 0x0a : e === 0x74 ? 0x09 : e === 0x72 ? 0x0d : e === 0x62 ? 0x08 : e === 0x66 ? 0x0c : e;
      }
      tmp[n++] = c;
    }
    this.w.text(col, tmp, 0, n);
  }

  private scratch = Buffer.allocUnsafe(256);
}
