// A workbook from one or more sheets, each fed pages of rows, split into parts by row count and
// compressed size: every part is a complete .xlsx whose sheets each carry their title, summary,
// header area, table header and footer. Sheets are written one after another, so memory holds one
// sheet's open state whatever their number.
// Hand-written (SpreadsheetML and its zip container) rather than exceljs's streaming WorkbookWriter: for 1M styled
// rows that took 55 s / 617 MB, or 126 s when made to wait on its queue, against ~14 s / 200 MB here,
// and it cannot tell how many compressed bytes a part holds (ADR 0007, docs/excel.md).
import { rm } from 'node:fs/promises';
import { type Area, layoutArea } from '../template/areas.js';
import { htmlToRuns } from '../template/html.js';
import { groupOf } from './group.js';
import { areaWidth, type SheetLayout } from '../template/layout.js';
import type { SheetChart } from '../charts.js';
import { addSheetCharts, hasDrawing } from './chart-parts.js';
import { Looks } from './looks.js';
import { columnWidths, summaryHeight } from './measure.js';
import { chunkFor, SHEET_LEVEL, trailerBytes, XlsxPackage } from './package.js';
import { DEFLATE_OUT } from './zip.js';
import { LeafCursor } from './row-titles.js';
import { type SheetContent, SheetPart, SheetPlan } from './sheet.js';
import { timeZone } from '../time-zone.js';
import { continuedName, uniqueName } from './sheet-names.js';
import { StyleSheet } from './styles.js';
import type { WrittenPart } from '../part.js';
import { checkPartNumber } from '../split.js';
import { EXCEL_SHEET_ROWS } from '../../../model/project-settings.js';

export type { WrittenPart } from '../part.js';
export { sheetName } from './sheet-names.js';

/**
 * What can sit inside the compressor unseen by `queued` (package.ts): zlib's buffered block, whose
 * symbols compress to at most 6 bytes each (16 Ki symbols at the default memLevel, ~96 KiB) and its
 * pending output, plus the output buffer being filled. A part closes when the bytes through the meter
 * plus this, plus our own queue, plus the tail could reach its limit, so it never passes it (bench
 * and tests check the sizes).
 */
export const PIPELINE_LAG = 128 * 1024 + DEFLATE_OUT;

export interface SheetInput {
  layout: SheetLayout;
  title?: string | undefined;
  summary?: string | undefined;
  header?: Area | undefined;
  footer?: Area | undefined;
  /** Charts over each part's rows of this sheet (columns resolved: charts.ts sheetCharts). */
  charts?: SheetChart[] | undefined;
  /**
   * Pages in order: rows, or (with a row tree) groups of rows. A page may be a lazy iterable (rows
   * parsed as they are read), so that only the row being written is alive; the first page is read
   * whole, as the sample for the column widths.
   */
  pages: AsyncIterable<Iterable<unknown>>;
  /** A valid worksheet name (sheetName), unique in the workbook. */
  name: string;
  /**
   * The sheet's data rows when known ahead (a table without row headers): a sheet that would fit
   * whole in a fresh part but not in what is left of the current one starts a fresh part.
   */
  rows?: number | undefined;
  /** A filter on the table header (absent: there is one). */
  autofilter?: boolean | undefined;
  /** An IANA zone: date-times the source wrote with a zone are shown as wall-clock time there. */
  timeZone?: string | undefined;
}

export interface WriteOptions {
  maxRows: number;
  maxBytes: number;
  /** The most parts (MAX_PARTS): one more fails too_many_parts before it is opened. */
  maxParts?: number | undefined;
  /** Where part n (1-based) is written. */
  pathFor: (part: number) => string;
  level?: number | undefined;
  mtime: Date;
  /** Called after each page, e.g. to heartbeat, with the rows of all sheets so far. */
  onPage?: ((rowsSoFar: number) => void) | undefined;
  /** Writes only the first rows of each sheet (a preview); the pages are still read as they come. */
  rowsPerSheet?: number | undefined;
}

/** The single-sheet form (bench, samples). */
export type WorkbookInput = Omit<SheetInput, 'name'> & WriteOptions & { sheetName: string };

function content(input: SheetInput, looks: Looks, sample: unknown[]): SheetContent {
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
    looks,
    widths,
    areaWidth: width,
    title: input.title || undefined,
    summary,
    header,
    footer,
    // Frozen rows that fill the screen would leave no room to scroll the data.
    freeze: aboveRows <= 12 && aboveHeight <= 240,
    charts: input.charts ?? [],
    autofilter: input.autofilter ?? true,
    zone: timeZone(input.timeZone),
  };
}

export function writeWorkbook(input: WorkbookInput): Promise<WrittenPart[]> {
  return writeSheets([{ ...input, name: input.sheetName }], input);
}

/**
 * The parts of a workbook of `sheets`, in order. A part closes when it holds `maxRows` data rows
 * (all its sheets together), when a sheet reaches Excel's row limit, or before its compressed
 * size could pass `maxBytes`; the sheet being written continues in the next part under the name
 * `<name> (2)`, `(3)`, …. A part always takes at least one row, so the export always advances.
 */
export async function writeSheets(sheets: SheetInput[], opts: WriteOptions): Promise<WrittenPart[]> {
  // Every sheet's looks are registered before styles.xml, which each part writes first.
  const styles = new StyleSheet();
  const looks = sheets.map((s) => new Looks(s.layout, styles));
  const stylesXml = styles.toXml();
  const limit = opts.rowsPerSheet ?? Infinity;
  // Chart sheets yield these names to the worksheets that may come later in a part.
  const worksheetNames = new Set(sheets.map((s) => s.name.toLowerCase()));
  const reserved = (name: string) => worksheetNames.has(name.toLowerCase());
  const parts: WrittenPart[] = [];
  let pkg: XlsxPackage | null = null;
  let path = '';
  let partRows = 0;
  let total = 0;

  const openPart = () => {
    checkPartNumber(parts.length + 1, opts);
    path = opts.pathFor(parts.length + 1);
    pkg = new XlsxPackage({ path, stylesXml, level: opts.level ?? SHEET_LEVEL, mtime: opts.mtime, chunk: chunkFor(opts.maxBytes) });
    partRows = 0;
  };
  const closePart = async () => {
    const { bytes, sha256 } = await pkg!.close();
    parts.push({ path, rows: partRows, bytes, sha256 });
    pkg = null;
  };
  /** Whether the bytes written, queued, the lag and `more` could reach the limit. */
  const bytesFull = (more: number) => pkg!.bytes + pkg!.queued + PIPELINE_LAG + trailerBytes(pkg!.sheetCount + 1) + more >= opts.maxBytes;

  try {
    for (const [i, input] of sheets.entries()) {
      const pages = input.pages[Symbol.asyncIterator]();
      const first = await pages.next();
      const firstPage = first.done ? [] : [...first.value];
      const threeD = input.layout.rowLevels > 0;
      const sample = threeD ? firstPage.flatMap((g) => groupOf(g).rows) : firstPage;
      const plan = new SheetPlan(content(input, looks[i]!, sample.slice(0, 1000)));
      const c = plan.content;
      const fixedRows = (c.title ? 1 : 0) + (c.summary ? 1 : 0) + c.header.length + c.layout.headerRows + c.footer.length;
      const sheetCap = Math.max(1, EXCEL_SHEET_ROWS - fixedRows);
      const maxRows = Math.min(opts.maxRows, sheetCap);
      const rows = input.rows === undefined ? undefined : Math.min(input.rows, limit);

      // A sheet starts in a fresh part when this one cannot take its prelude, or when it would fit
      // whole in a fresh part but not in what is left of this one.
      if (pkg !== null) {
        const p = pkg as XlsxPackage;
        const rowsLeft = opts.maxRows - partRows;
        const wholeElsewhere = rows !== undefined && rows > rowsLeft && rows <= maxRows;
        if (p.sheetCount > 0 && ((rows !== 0 && rowsLeft <= 0) || wholeElsewhere || bytesFull(plan.preludeBytes + plan.footerBytes + plan.chartBytes + 1024))) await closePart();
      }
      let piece = 0;
      let sheet: SheetPart | null = null;
      let pieceName = '';
      const openSheet = async () => {
        if (!pkg) openPart();
        const p = pkg as unknown as XlsxPackage;
        piece++;
        pieceName = uniqueName(piece === 1 ? input.name : continuedName(input.name, piece), (n) => p.hasSheet(n));
        p.startSheet(pieceName);
        sheet = new SheetPart(plan);
        await sheet.open(p);
      };
      const closeSheet = async () => {
        const s = sheet as unknown as SheetPart;
        const rows = await s.close(hasDrawing(c.charts, s.dataRows));
        await pkg!.endSheet();
        addSheetCharts(pkg!, pieceName, c.charts, c.layout, rows, reserved);
      };
      const full = () => {
        const s = sheet as unknown as SheetPart;
        return partRows >= opts.maxRows || s.dataRows >= maxRows || (s.dataRows > 0 && bytesFull(s.tailBytes));
      };
      const leaves = new LeafCursor(c.layout.rowLeaves);
      let written = 0;

      await openSheet();
      pageLoop: for (let page = first; !page.done; page = await pages.next()) {
        for (const el of page === first ? firstPage : page.value) {
          const group = threeD ? groupOf(el) : null;
          const leaf = group ? leaves.leafFor(group.name) : null;
          for (const row of group ? group.rows : [el]) {
            if (written >= limit) break pageLoop;
            if (full()) {
              await closeSheet();
              await closePart();
              await openSheet();
            }
            const wait = sheet!.dataRow(row, leaf);
            if (wait) await wait;
            partRows++;
            written++;
            total++;
          }
        }
        opts.onPage?.(total);
      }
      // A preview stops early: the rest of the pages are not read.
      if (written >= limit) await pages.return?.();
      await closeSheet();
    }
    if (pkg) await closePart();
  } catch (err) {
    (pkg as XlsxPackage | null)?.abort(err as Error);
    await Promise.all([...parts.map((p) => p.path), path].filter(Boolean).map((p) => rm(p, { force: true })));
    throw err;
  }
  return parts;
}
