// Sizes Excel cannot compute for a streamed sheet: column widths (from the header and the first
// page of data) and the summary's row height. Widths are in characters, heights in points.
import { ownValue } from '../own.js';
import type { Run } from '../template/html.js';
import { runsText } from '../template/html.js';
import type { SheetLayout } from '../template/layout.js';
import { toCell } from '../template/values.js';

const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|[\ud800-\udbff][\udc00-\udfff]/g;
const MIN_WIDTH = 8;
const MAX_WIDTH = 50;
const LINE_HEIGHT = 15;
/** The design's cap on the summary's height. */
export const SUMMARY_MAX_HEIGHT = 150;

/** East Asian characters take two columns of width. */
export function displayWidth(s: string): number {
  return s.length + (s.match(WIDE)?.length ?? 0);
}

function valueWidth(v: unknown, type: SheetLayout['columns'][number]['type']): number {
  const cell = toCell(v, type);
  if (cell === null) return 0;
  if (cell.t === 'b') return 5;
  if (cell.t === 's') return Math.max(...cell.v.split('\n').map(displayWidth));
  if (type === 'date') return 10;
  if (type === 'datetime') return 19;
  const digits = String(Math.round(Math.abs(cell.v))).length;
  // Thousands separators, a sign and two decimals for the formatted types.
  return type === 'money' || type === 'decimal' ? digits + Math.floor((digits - 1) / 3) + 4 : type === 'percent' ? digits + 6 : String(cell.v).length;
}

/** Widths per physical column: the template's, else fitted to the header and the sample rows. */
export function columnWidths(layout: SheetLayout, sample: unknown[]): number[] {
  const want = layout.columns.map(() => 0);
  for (const h of layout.headerCells) {
    // A title over several columns shares their width; a single-column one sets it.
    if (h.cols === 1) want[h.col] = Math.max(want[h.col]!, displayWidth(h.title));
  }
  layout.columns.forEach((c, i) => {
    if (c.rowLevel !== undefined) {
      for (const leaf of layout.rowLeaves) {
        const t = leaf.path.find((p) => p.level === c.rowLevel);
        if (t) want[i] = Math.max(want[i]!, displayWidth(t.title));
      }
    }
  });
  let pos = 0;
  const positions = layout.columns.map((c) => (c.key === null ? -1 : pos++));
  for (const row of sample) {
    layout.columns.forEach((c, i) => {
      if (c.key === null) return;
      const v = Array.isArray(row) ? row[positions[i]!] : ownValue(row, c.key);
      want[i] = Math.max(want[i]!, valueWidth(v, c.type));
    });
  }
  return layout.columns.map((c, i) => c.width ?? Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, want[i]! + 2)));
}

/** Lines the summary needs at `chars` characters a line, capped at the design's maximum height. */
export function summaryHeight(runs: Run[], chars: number): number {
  const lines = runsText(runs)
    .split('\n')
    .reduce((n, line) => n + Math.max(1, Math.ceil(displayWidth(line) / Math.max(1, chars))), 0);
  return Math.min(SUMMARY_MAX_HEIGHT, lines * LINE_HEIGHT + 6);
}
