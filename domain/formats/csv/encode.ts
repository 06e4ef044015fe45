// CSV encoding: RFC 4180 by default (CRLF, a field with a comma, quote, CR or LF is quoted, quotes
// doubled), or the task's dialect (csv_delimiter, csv_line_ending: the delimiter takes the comma's
// place in the quoting rule), with formula-injection escaping and the task's time_zone. The header
// line goes through csv-stringify; the rows, the hot path of every CSV export, through encodeCsvRows.
//
// Why the rows are hand-written: csv-stringify builds an array record per row, a [value, field]
// pair per cell and runs its option checks for every field. On the export benchmark's pages
// (1000 rows × 7 columns) that is more than twice the time of the loop here, the largest single
// cost of a CSV export after JSON.parse (docs/performance.md). The output is the same as
// csv-stringify's with `stringifyOptions(dialect)` for every input but a row of one empty field
// (LONE_EMPTY): test/unit/csv-encode.test.ts checks it field by field against csv-stringify itself.
import { stringify } from 'csv-stringify/sync';
import type { CsvDelimiter, CsvLineEnding } from '../../../model/task.js';
import type { Column } from '../columns.js';
import { ownReader } from '../own.js';
import { type TimeZone, timeZone } from '../time-zone.js';

// OWASP's CSV-injection list (= + - @ TAB CR LF) and the full-width forms ＝ ＋ － ＠ (U+FF1D,
// U+FF0B, U+FF0D, U+FF20), which Excel and WPS read as their ASCII twins when a cell is typed in.
const FORMULA_START = /^[=+\-@\t\r\n\uff1d\uff0b\uff0d\uff20]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * A spreadsheet must never run a cell as a formula: such text gets a leading apostrophe (OWASP).
 * Used for header cells and data cells alike. Plain ASCII numbers such as -12.5 are left alone.
 */
export function escapeFormula(s: string): string {
  return FORMULA_START.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
}

/**
 * csv-stringify's options for our files. `quote_record_delimiter` must be set: with a custom
 * record_delimiter csv-stringify otherwise leaves a field holding a lone LF or CR unquoted, which
 * splits the row in every reader.
 */
export const csvOptions = { record_delimiter: 'windows', quote_record_delimiter: true, quoted_match: undefined } as const;

/**
 * How a task's CSV is written: plain data (it crosses to the page encoder's threads). Absent
 * fields are RFC 4180's: comma, CR LF; no time_zone: date-times as the source wrote them.
 */
export interface CsvStyle {
  delimiter?: CsvDelimiter | undefined;
  lineEnding?: CsvLineEnding | undefined;
  timeZone?: string | undefined;
}

export const RFC4180: CsvStyle = {};

/** The style a task's options ask for (the project's defaults were filled in at submission). */
export function csvStyle(options: { csv_delimiter?: CsvDelimiter | undefined; csv_line_ending?: CsvLineEnding | undefined; time_zone?: string | undefined }): CsvStyle {
  return { delimiter: options.csv_delimiter, lineEnding: options.csv_line_ending, timeZone: options.time_zone };
}

/** csvOptions for a dialect: the same rules with its delimiter and record delimiter. */
export function stringifyOptions(style: CsvStyle) {
  return { ...csvOptions, delimiter: style.delimiter ?? ',', record_delimiter: style.lineEnding === 'lf' ? 'unix' : 'windows' } as const;
}

/** BOM (optional) and the header line of the titles. */
export function encodeCsvHead(columns: Column[], bom: boolean, style: CsvStyle = RFC4180): Buffer {
  const titles = columns.map((c) => escapeFormula(c.title));
  // One empty title: `""`, not a blank line (see LONE_EMPTY).
  return Buffer.from((bom ? '\ufeff' : '') + stringify([titles], { ...stringifyOptions(style), quoted_empty: titles.length === 1 }), 'utf8');
}

/**
 * A row whose only field is empty is written `""`: as an empty line it would be no record at all
 * to most readers (DuckDB, pandas and spreadsheets skip blank lines, Python's csv reads no field).
 */
export const LONE_EMPTY = '""';

/** Whether a cell starting with this char code may need escapeFormula (FORMULA_START on one code). */
function mayBeFormula(c: number): boolean {
  // = + - @ TAB LF CR below 'A'; ＋ － ＝ ＠ at U+FF0B..U+FF20
  return c < 65 ? c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 10 || c === 13 : c >= 0xff0b && (c === 0xff0b || c === 0xff0d || c === 0xff1d || c === 0xff20);
}

/**
 * One dialect's cells: what needs quotes follows its delimiter. One per style, kept (csvCells), so
 * the regex is built once and the hot loop sees the same shapes whatever the dialect.
 */
export class CsvCells {
  readonly sep: string;
  readonly eol: string;
  /** The delimiter's byte (all four are ASCII), for the byte transcoder. */
  readonly sepByte: number;
  readonly zone: TimeZone | null;
  private readonly needsQuotes: RegExp;

  constructor(style: CsvStyle) {
    this.sep = style.delimiter ?? ',';
    this.eol = style.lineEnding === 'lf' ? '\n' : '\r\n';
    this.sepByte = this.sep.charCodeAt(0);
    this.zone = timeZone(style.timeZone);
    this.needsQuotes = this.sep === '\t' ? /["\t\r\n]/ : this.sep === ';' ? /[";\r\n]/ : this.sep === '|' ? /["|\r\n]/ : /[",\r\n]/;
  }

  /** A non-empty text field as csv-stringify writes it with stringifyOptions. */
  private quote(s: string): string {
    if (!this.needsQuotes.test(s)) return s;
    return `"${s.includes('"') ? s.replaceAll('"', '""') : s}"`;
  }

  /** escapeFormula, with the common case (no formula character first) decided on one char code. */
  text(s: string): string {
    if (s === '') return '';
    return this.quote(mayBeFormula(s.charCodeAt(0)) ? escapeFormula(s) : s);
  }

  /** A string value of the source: a zoned date-time moved to the task's zone first. */
  source(s: string): string {
    return this.text(this.zone ? (this.zone.wallClock(s) ?? s) : s);
  }

  /** `zoned`: false for a column the template types `string`, whose text time_zone leaves as written. */
  cell(v: unknown, zoned = true): string {
    if (typeof v === 'string') return zoned ? this.source(v) : this.text(v);
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
    if (v === null || v === undefined) return '';
    return this.text(JSON.stringify(v));
  }
}

/** A style's cache key: every field of CsvStyle, so the encoders' and transcoders' caches agree. */
export const csvStyleId = (style: CsvStyle): string => `${style.delimiter ?? ','}\u0000${style.lineEnding ?? 'crlf'}\u0000${style.timeZone ?? ''}`;

const cellsByStyle = new Map<string, CsvCells>();

/** The cells of a style, made once (at most 64 kept: the dialects times the zones in use). */
export function csvCells(style: CsvStyle = RFC4180): CsvCells {
  const id = csvStyleId(style);
  let c = cellsByStyle.get(id);
  if (!c) {
    if (cellsByStyle.size >= 64) cellsByStyle.clear();
    c = new CsvCells(style);
    cellsByStyle.set(id, c);
  }
  return c;
}

/** Rows (objects from the source's JSON) as CSV lines in the columns' order. */
export function encodeCsvRows(rows: unknown[], columns: Column[], style: CsvStyle = RFC4180): Buffer {
  if (rows.length === 0) return Buffer.alloc(0);
  // A key Object.prototype also has (constructor, __proto__, …) is read as an own property only.
  const read = columns.map((c) => ownReader(c.key));
  const zoned = columns.map((c) => c.type !== 'string');
  const cells = csvCells(style);
  const { sep, eol } = cells;
  let out = '';
  for (const r of rows) {
    const o = r ?? {};
    if (read.length === 1) out += cells.cell(read[0]!(o), zoned[0]) || LONE_EMPTY;
    else for (let i = 0; i < read.length; i++) out += i === 0 ? cells.cell(read[i]!(o), zoned[i]) : sep + cells.cell(read[i]!(o), zoned[i]);
    out += eol;
  }
  return Buffer.from(out, 'utf8');
}
