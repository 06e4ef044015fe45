// CSV encoding: RFC 4180 (CRLF, a field with a comma, quote, CR or LF is quoted, quotes doubled),
// with formula-injection escaping. The header line goes through csv-stringify; the rows, the hot
// path of every CSV export, through encodeCsvRows below.
//
// Why the rows are hand-written: csv-stringify builds an array record per row, a [value, field]
// pair per cell and runs its option checks for every field. On the export benchmark's pages
// (1000 rows × 7 columns) that is more than twice the time of the loop here, the largest single
// cost of a CSV export after JSON.parse (docs/performance.md). The output is the same as
// csv-stringify's with `csvOptions` for every input but a row of one empty field (LONE_EMPTY):
// test/unit/csv-encode.test.ts checks it field by field against csv-stringify itself.
import { stringify } from 'csv-stringify/sync';
import type { Column } from '../columns.js';
import { ownReader } from '../own.js';

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

/** BOM (optional) and the header line of the titles. */
export function encodeCsvHead(columns: Column[], bom: boolean): Buffer {
  const titles = columns.map((c) => escapeFormula(c.title));
  // One empty title: `""`, not a blank line (see LONE_EMPTY).
  return Buffer.from((bom ? '\ufeff' : '') + stringify([titles], { ...csvOptions, quoted_empty: titles.length === 1 }), 'utf8');
}

/**
 * A row whose only field is empty is written `""`: as an empty line it would be no record at all
 * to most readers (DuckDB, pandas and spreadsheets skip blank lines, Python's csv reads no field).
 */
export const LONE_EMPTY = '""';

const NEEDS_QUOTES = /[",\r\n]/;

/** A non-empty text field as csv-stringify writes it with csvOptions. */
function quote(s: string): string {
  if (!NEEDS_QUOTES.test(s)) return s;
  return `"${s.includes('"') ? s.replaceAll('"', '""') : s}"`;
}

/** Whether a cell starting with this char code may need escapeFormula (FORMULA_START on one code). */
function mayBeFormula(c: number): boolean {
  // = + - @ TAB LF CR below 'A'; ＋ － ＝ ＠ at U+FF0B..U+FF20
  return c < 65 ? c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 10 || c === 13 : c >= 0xff0b && (c === 0xff0b || c === 0xff0d || c === 0xff1d || c === 0xff20);
}

/** escapeFormula, with the common case (no formula character first) decided on one char code. */
export function textCell(s: string): string {
  if (s === '') return '';
  return quote(mayBeFormula(s.charCodeAt(0)) ? escapeFormula(s) : s);
}

function cell(v: unknown): string {
  if (typeof v === 'string') return textCell(v);
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return '';
  return textCell(JSON.stringify(v));
}

/** Rows (objects from the source's JSON) as CSV lines in the columns' order. */
export function encodeCsvRows(rows: unknown[], columns: Column[]): Buffer {
  if (rows.length === 0) return Buffer.alloc(0);
  // A key Object.prototype also has (constructor, __proto__, …) is read as an own property only.
  const read = columns.map((c) => ownReader(c.key));
  let out = '';
  for (const r of rows) {
    const o = r ?? {};
    if (read.length === 1) out += cell(read[0]!(o)) || LONE_EMPTY;
    else for (let i = 0; i < read.length; i++) out += i === 0 ? cell(read[i]!(o)) : `,${cell(read[i]!(o))}`;
    out += '\r\n';
  }
  return Buffer.from(out, 'utf8');
}
