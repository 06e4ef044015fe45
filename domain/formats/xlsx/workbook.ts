// A workbook from pages of rows, split into parts by row count and compressed size: each part is a
// complete .xlsx with the same title, summary, header area, table header and footer.
// Hand-written (with yazl for the zip) rather than exceljs's streaming WorkbookWriter: for 1M styled
// rows that took 55 s / 617 MB, or 126 s when made to wait on its queue, against ~14 s / 200 MB here,
// and it cannot tell how many compressed bytes a part holds (ADR 0007, docs/excel.md).
import { rm } from 'node:fs/promises';
import { type Area, layoutArea } from '../template/areas.js';
import { htmlToRuns } from '../template/html.js';
import { areaWidth, type SheetLayout } from '../template/layout.js';
import { Looks } from './looks.js';
import { columnWidths, summaryHeight } from './measure.js';
import { XlsxPackage } from './package.js';
import { LeafCursor } from './row-titles.js';
import { type SheetContent, SheetPart, SheetPlan } from './sheet.js';
import type { WrittenPart } from '../part.js';
import { EXCEL_SHEET_ROWS } from '../../../model/project-settings.js';

export type { WrittenPart } from '../part.js';

/**
 * What can sit inside yazl between our stream and the file: five 16 KiB stream buffers of XML
 * (deflate never grows data by more than 0.1 %), zlib's pending block, and three 16 KiB buffers of
 * compressed output. A part closes when the bytes on disk plus this, plus our own queue, plus the
 * tail could reach its limit, so it never passes it (bench and tests check the sizes).
 */
export const PIPELINE_LAG = 5 * 16384 * 1.001 + 48 * 1024 + 3 * 16384;

export interface WorkbookInput {
  layout: SheetLayout;
  title?: string | undefined;
  summary?: string | undefined;
  header?: Area | undefined;
  footer?: Area | undefined;
  /** Pages in order: rows, or (with a row tree) groups of rows. */
  pages: AsyncIterable<unknown[]>;
  maxRows: number;
  maxBytes: number;
  /** Where part n (1-based) is written. */
  pathFor: (part: number) => string;
  level?: number | undefined;
  mtime: Date;
  sheetName: string;
  /** Called after each page, e.g. to heartbeat. */
  onPage?: ((rowsSoFar: number) => void) | undefined;
}

/** A valid sheet name: at most 31 characters, none of []:*?/\ . */
export function sheetName(s: string | undefined): string {
  const clean = (s ?? '').replace(/[[\]:*?/\\\u0000-\u001f]/g, ' ').replace(/^'+|'+$/g, '').trim().slice(0, 31).trim();
  return clean || 'Sheet1';
}

function content(input: WorkbookInput, sample: unknown[]): SheetContent {
  const { layout } = input;
  const width = areaWidth(layout);
  const widths = columnWidths(layout, sample);
  const runs = input.summary ? htmlToRuns(input.summary) : [];
  const areaChars = widths.slice(0, width).reduce((a, b) => a + b, 0);
  const summary = runs.length ? { runs, height: summaryHeight(runs, areaChars) } : undefined;
  const header = layoutArea(input.header, width);
  const footer = layoutArea(input.footer, width);
  const aboveRows = (input.title ? 1 : 0) + (summary ? 1 : 0) + header.length + layout.headerRows;
  const aboveHeight = (input.title ? 32 : 0) + (summary?.height ?? 0) + (header.length + layout.headerRows) * 15;
  return {
    layout,
    looks: new Looks(layout),
    widths,
    areaWidth: width,
    title: input.title || undefined,
    summary,
    header,
    footer,
    // Frozen rows that fill the screen would leave no room to scroll the data.
    freeze: aboveRows <= 12 && aboveHeight <= 240,
  };
}

/** Rows of one page element: a row, or in a three-dimensional table a group (named or not). */
function groupOf(el: unknown): { name?: string; rows: unknown[] } {
  if (Array.isArray(el)) return { rows: el };
  if (el && typeof el === 'object') {
    const keys = Object.keys(el);
    const only = keys.length === 1 ? (el as Record<string, unknown>)[keys[0]!] : undefined;
    if (Array.isArray(only)) return { name: keys[0]!, rows: only };
  }
  return { rows: [el] };
}

export async function writeWorkbook(input: WorkbookInput): Promise<WrittenPart[]> {
  const pages = input.pages[Symbol.asyncIterator]();
  const first = await pages.next();
  const firstPage = first.done ? [] : first.value;
  const threeD = input.layout.rowLevels > 0;
  const sample = threeD ? firstPage.flatMap((g) => groupOf(g).rows) : firstPage;
  const plan = new SheetPlan(content(input, sample.slice(0, 1000)));
  const c = plan.content;
  const fixedRows = (c.title ? 1 : 0) + (c.summary ? 1 : 0) + c.header.length + c.layout.headerRows + c.footer.length;
  const maxRows = Math.max(1, Math.min(input.maxRows, EXCEL_SHEET_ROWS - fixedRows));
  const stylesXml = c.looks.sheet.toXml();
  const parts: WrittenPart[] = [];
  let pkg: XlsxPackage | null = null;
  let part: SheetPart | null = null;
  let path = '';
  let total = 0;

  const openPart = async () => {
    path = input.pathFor(parts.length + 1);
    pkg = new XlsxPackage({ path, sheetName: input.sheetName, stylesXml, level: input.level ?? 6, mtime: input.mtime });
    part = new SheetPart(pkg, plan);
    await part.open();
  };
  const closePart = async () => {
    await part!.close();
    const { bytes, sha256 } = await pkg!.close();
    parts.push({ path, rows: part!.dataRows, bytes, sha256 });
  };
  const full = () => part!.dataRows >= maxRows || (part!.dataRows > 0 && pkg!.bytes + pkg!.queued + PIPELINE_LAG + part!.tailBytes >= input.maxBytes);
  const leaves = new LeafCursor(c.layout.rowLeaves);

  try {
    await openPart();
    for (let page = first; !page.done; page = await pages.next()) {
      for (const el of page.value) {
        const group = threeD ? groupOf(el) : null;
        const leaf = group ? leaves.leafFor(group.name) : null;
        for (const row of group ? group.rows : [el]) {
          if (full()) {
            await closePart();
            await openPart();
          }
          const wait = part!.dataRow(row, leaf);
          if (wait) await wait;
          total++;
        }
      }
      input.onPage?.(total);
    }
    await closePart();
  } catch (err) {
    (pkg as XlsxPackage | null)?.abort(err as Error);
    await Promise.all([...parts.map((p) => p.path), path].filter(Boolean).map((p) => rm(p, { force: true })));
    throw err;
  }
  return parts;
}
