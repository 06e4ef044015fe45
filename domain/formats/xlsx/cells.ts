// A data column's cells as SpreadsheetML. The cases a million rows are made of (a number in a
// numeric column, text in a text column, a date in a date column, nothing) go from the value
// straight to XML; every other value goes through toCell, as all did before, with the same XML.
// Why: a cell object per cell was the writer's largest source of garbage.
import type { CellType } from '../template/schema.js';
import { type Cell, dateSerial, MAX_CELL_TEXT } from '../template/values.js';
import { textEl } from './xml.js';

/** One cell's XML: `row` is the 1-based row number as text, `k` the look (0, or the condition met + 1). */
export type CellXml = (v: unknown, row: string, k: number) => string;

// Text starting like this would be a formula if typed in: it gets the look with quotePrefix.
function formulaStart(s: string): boolean {
  const c = s.charCodeAt(0);
  return c === 61 || c === 43 || c === 45 || c === 64; // = + - @
}

export interface ColumnCells {
  letter: string;
  type: CellType | undefined;
  /** Style index per look, and the same with quotePrefix. */
  plain: number[];
  quoted: number[];
  /** The general path: the value as a typed cell (time_zone applied when the task has one). */
  cellOf: (v: unknown) => Cell;
  /** The column's values pass through time_zone: only the general path applies it. */
  zoned: boolean;
}

export function cellWriter(c: ColumnCells): CellXml {
  const head = `<c r="${c.letter}`;
  const blank = c.plain.map((s) => `" s="${s}"/>`);
  const num = c.plain.map((s) => `" s="${s}"><v>`);
  const bool = c.plain.map((s) => `" s="${s}" t="b"><v>`);
  const str = c.plain.map((s) => `" s="${s}" t="inlineStr"><is>`);
  const quoted = c.quoted.map((s) => `" s="${s}" t="inlineStr"><is>`);
  const text = (s: string, row: string, k: number) => `${head}${row}${formulaStart(s) ? quoted[k] : str[k]}${textEl(s)}</is></c>`;
  const general: CellXml = (v, row, k) => {
    const cell = c.cellOf(v);
    if (cell === null) return `${head}${row}${blank[k]}`;
    if (cell.t === 'n') return `${head}${row}${num[k]}${cell.v}</v></c>`;
    if (cell.t === 'b') return `${head}${row}${bool[k]}${cell.v ? 1 : 0}</v></c>`;
    return text(cell.v, row, k);
  };
  if (c.zoned) return general;
  const { type } = c;
  const numeric = type !== 'string' && type !== 'date' && type !== 'datetime';
  const plainText = type === undefined || type === 'string';
  const dated = type === 'date' || type === 'datetime';
  return (v, row, k) => {
    if (typeof v === 'number') {
      if (numeric && Number.isFinite(v)) return `${head}${row}${num[k]}${v}</v></c>`;
    } else if (typeof v === 'string') {
      if (v !== '' && v.length <= MAX_CELL_TEXT) {
        if (plainText) return text(v, row, k);
        if (dated) {
          const n = dateSerial(v);
          return n === null ? text(v, row, k) : `${head}${row}${num[k]}${n}</v></c>`;
        }
      }
    } else if (v === undefined || v === null) return `${head}${row}${blank[k]}`;
    return general(v, row, k);
  };
}
