// One worksheet in one part: title, summary, header area, table header, data rows, footer area, merges.
// Data rows are turned into XML as they come and handed to the package at once; only the merge
// list (title/areas/header plus row-title merges) is held until the end of the part.
import type { SheetChart } from '../charts.js';
import { ownReader } from '../own.js';
import type { AreaCell } from '../template/areas.js';
import type { Run } from '../template/html.js';
import type { SheetLayout } from '../template/layout.js';
import { toCell } from '../template/values.js';
import type { TimeZone } from '../time-zone.js';
import type { Looks } from './looks.js';
import { cellWriter, type CellXml } from './cells.js';
import type { XlsxPackage } from './package.js';
import { RowTitles } from './row-titles.js';
import { fontXml } from './styles.js';
import { colName, NS_MAIN, NS_REL, rangeRef, textEl, XML_HEAD } from './xml.js';

export interface SheetContent {
  layout: SheetLayout;
  looks: Looks;
  /** Column widths in characters, one per physical column. */
  widths: number[];
  /** Title, summary, header and footer span this many columns (the column count, at most 20). */
  areaWidth: number;
  title?: string | undefined;
  summary?: { runs: Run[]; height: number } | undefined;
  header: AreaCell[][];
  footer: AreaCell[][];
  /** Freeze the panes below the table header (when the rows above it are not too tall). */
  freeze: boolean;
  /** Charts over each part's data rows (chart-parts.ts). */
  charts: SheetChart[];
  /** A filter on the table header's last row over the data rows (the task's autofilter). */
  autofilter: boolean;
  /** The task's time_zone: zoned date-time text becomes wall-clock time there before it is typed. */
  zone: TimeZone | null;
}

/** Where a closed sheet part's rows are, 0-based: what its charts refer to and sit beside. */
export interface PartRows {
  /** The first row of the table header. */
  tableTop: number;
  firstData: number;
  dataRows: number;
  /** The row after the footer. */
  end: number;
}

interface ColumnPlan {
  key: string | null;
  /** Position among the data (non-row-title) columns, for rows given as arrays. */
  pos: number;
  /** The column's value in a row object (own properties only). */
  read: (row: unknown) => unknown;
  cell: CellXml;
  tests: ((v: unknown) => boolean)[];
}

/** What stays the same across parts: the column plans and the prelude's shape. */
export class SheetPlan {
  readonly columns: ColumnPlan[];
  readonly rowAttr: string;
  readonly firstTitleCol: number;
  readonly footerBytes: number;
  /** Upper bound of the chart parts' bytes, uncompressed, with their zip entries and names in the workbook. */
  readonly chartBytes: number;

  constructor(readonly content: SheetContent) {
    const { layout, looks, zone } = content;
    let pos = 0;
    this.columns = layout.columns.map((c, i) => {
      // A column the template types `string` is text as the source wrote it: time_zone leaves it.
      const zoned = zone !== null && c.type !== 'string';
      const cellOf = zoned ? (v: unknown) => toCell(zone.shift(v), c.type) : (v: unknown) => toCell(v, c.type);
      const { plain, quoted } = looks.columns[i]!;
      return {
        key: c.key,
        pos: c.key === null ? -1 : pos++,
        read: c.key === null ? () => undefined : ownReader(c.key),
        cell: cellWriter({ letter: colName(i), type: c.type, plain, quoted, cellOf, zoned }),
        tests: c.conditions.map((k) => k.test),
      };
    });
    this.rowAttr = layout.rowHeight ? ` ht="${layout.rowHeight}" customHeight="1"` : '';
    this.firstTitleCol = layout.columns.findIndex((c) => c.key === null);
    // Upper bound of the footer rows' XML: escaping and UTF-8 make a character at most 6 bytes.
    this.footerBytes = content.footer.flat().reduce((n, c) => n + 120 * c.span + 6 * String(c.text ?? '').length, 0);
    this.chartBytes = content.charts.reduce((n, c) => n + 8192 + 2048 * c.series.length, 0);
  }

  /** Upper bound of the prelude's bytes (UTF-8 is at most 3 bytes a UTF-16 unit): can a part still take this sheet? */
  get preludeBytes(): number {
    return (this.prelude ??= new SheetPart(this).prelude().length * 3);
  }
  private prelude: number | undefined;
}

export class SheetPart {
  /** Next row, 0-based. */
  row = 0;
  dataRows = 0;
  private pkg: XlsxPackage | null = null;
  /** The table header's last row, 0-based (-1: the table has no header). */
  private headerRow = -1;
  private readonly merges: string[] = [];
  private readonly titles: RowTitles | null;

  constructor(private readonly plan: SheetPlan) {
    const { layout, looks } = plan.content;
    this.titles = layout.rowLevels > 0 ? new RowTitles(layout.rowLevels, plan.firstTitleCol, looks, (m) => this.merges.push(m)) : null;
  }

  /** Bytes the rest of this part still needs at most (footer, merges, closing tags), uncompressed. */
  get tailBytes(): number {
    // A mergeCell element is at most 41 bytes ("XFD1048576:XFD1048576").
    return 1024 + this.plan.footerBytes + this.merges.length * 48 + this.plan.chartBytes;
  }

  private merge(r1: number, c1: number, r2: number, c2: number): void {
    if (r1 !== r2 || c1 !== c2) this.merges.push(rangeRef(r1, c1, r2, c2));
  }

  /** Writes everything above the data: sheet properties, title, summary, header area, table header. */
  async open(pkg: XlsxPackage): Promise<void> {
    this.pkg = pkg;
    await pkg.write(this.prelude());
  }

  /** The XML above the data (it also records the prelude's merges). */
  prelude(): string {
    const c = this.plan.content;
    // <cols> must not be empty: a table without columns (no template, no rows) has none.
    const cols = c.widths.length ? `<cols>${c.widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`).join('')}</cols>` : '';
    const preludeRows = (c.title ? 1 : 0) + (c.summary ? 1 : 0) + c.header.length + c.layout.headerRows;
    const pane = c.freeze
      ? `<pane ySplit="${preludeRows}" topLeftCell="A${preludeRows + 1}" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft"/>`
      : '';
    let xml =
      `${XML_HEAD}<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><sheetViews><sheetView workbookViewId="0">${pane}</sheetView></sheetViews>` +
      `<sheetFormatPr defaultRowHeight="15"/>${cols}<sheetData>`;
    if (c.title) xml += this.wideRow(`<is>${textEl(c.title)}</is>`, c.looks.title, ' ht="32" customHeight="1"');
    if (c.summary) xml += this.wideRow(richText(c.summary.runs), c.looks.summary, ` ht="${c.summary.height}" customHeight="1"`);
    for (const cells of c.header) xml += this.areaRow(cells);
    return xml + this.tableHeader();
  }

  private wideRow(inner: string, style: number, attr: string): string {
    const w = this.plan.content.areaWidth;
    const r = this.row + 1;
    let xml = `<row r="${r}"${attr}><c r="A${r}" s="${style}" t="inlineStr">${inner}</c>`;
    for (let i = 1; i < w; i++) xml += `<c r="${colName(i)}${r}" s="${style}"/>`;
    this.merge(this.row, 0, this.row, w - 1);
    this.row++;
    return `${xml}</row>`;
  }

  private areaRow(cells: AreaCell[]): string {
    const { looks } = this.plan.content;
    const r = this.row + 1;
    let xml = `<row r="${r}">`;
    for (const cell of cells) {
      const s = cell.role === 'key' ? looks.areaKey : cell.role === 'pair' ? looks.areaPair : typeof cell.text === 'number' ? looks.areaNumber : looks.areaValue;
      xml += valueCell(`${colName(cell.col)}${r}`, s, cell.text);
      for (let i = 1; i < cell.span; i++) xml += `<c r="${colName(cell.col + i)}${r}" s="${s}"/>`;
      this.merge(this.row, cell.col, this.row, cell.col + cell.span - 1);
    }
    this.row++;
    return `${xml}</row>`;
  }

  private tableHeader(): string {
    const { layout, looks } = this.plan.content;
    const n = layout.columns.length;
    // Every cell of the header block gets the header look, so merged ranges keep their borders.
    const grid: string[][] = Array.from({ length: layout.headerRows }, () => Array.from({ length: n }, () => ''));
    const styles: number[][] = Array.from({ length: layout.headerRows }, () => Array.from({ length: n }, () => looks.header));
    for (const h of layout.headerCells) {
      const s = looks.headerCell(h);
      for (let r = h.row; r < h.row + h.rows; r++) for (let c = h.col; c < h.col + h.cols; c++) styles[r]![c] = s;
      grid[h.row]![h.col] = h.title;
      this.merge(this.row + h.row, h.col, this.row + h.row + h.rows - 1, h.col + h.cols - 1);
    }
    let xml = '';
    for (let hr = 0; hr < layout.headerRows; hr++) {
      const r = this.row + 1;
      xml += `<row r="${r}">`;
      for (let c = 0; c < n; c++) xml += valueCell(`${colName(c)}${r}`, styles[hr]![c]!, grid[hr]![c] || null);
      xml += '</row>';
      this.row++;
    }
    if (layout.headerRows > 0 && n > 0) this.headerRow = this.row - 1;
    return xml;
  }

  /** <autoFilter> over the header's last row and the data rows of this part (none: off, or no table). */
  private autoFilter(): string {
    if (!this.plan.content.autofilter || this.headerRow < 0) return '';
    const ref = rangeRef(this.headerRow, 0, this.row - 1, this.plan.content.layout.columns.length - 1);
    this.pkg!.filterSheet(ref);
    return `<autoFilter ref="${ref}"/>`;
  }

  /** One data row; `leaf` is its row-tree leaf in a three-dimensional table. */
  dataRow(data: unknown, leaf: Parameters<RowTitles['cells']>[0] = null): Promise<void> | undefined {
    const r = String(this.row + 1);
    let xml = `<row r="${r}"${this.plan.rowAttr}>`;
    let titlesDone = false;
    const arr = Array.isArray(data) ? (data as unknown[]) : null;
    // Only objects have keys: anything else in a page is a row of empty cells.
    const obj = arr === null && data !== null && typeof data === 'object';
    for (const col of this.plan.columns) {
      if (col.key === null) {
        if (!titlesDone && this.titles) xml += this.titles.cells(leaf, this.row);
        titlesDone = true;
        continue;
      }
      const v = arr ? arr[col.pos] : obj ? col.read(data) : undefined;
      let k = 0;
      while (k < col.tests.length && !col.tests[k]!(v)) k++;
      k = k < col.tests.length ? k + 1 : 0;
      xml += col.cell(v, r, k);
    }
    this.row++;
    this.dataRows++;
    return this.pkg!.write(`${xml}</row>`);
  }

  /** Ends the worksheet's XML; `drawing`: it names its drawing (rId1), the charts beside its rows. */
  async close(drawing = false): Promise<PartRows> {
    this.titles?.closeFrom(0, this.row - 1);
    // Before the footer rows: the filter covers the table only.
    const filter = this.autoFilter();
    const c = this.plan.content;
    const firstData = this.row - this.dataRows;
    const rows = { tableTop: firstData - c.layout.headerRows, firstData, dataRows: this.dataRows };
    for (const cells of c.footer) await this.pkg!.write(this.areaRow(cells));
    const merges = this.merges.length ? `<mergeCells count="${this.merges.length}">${this.merges.map((m) => `<mergeCell ref="${m}"/>`).join('')}</mergeCells>` : '';
    await this.pkg!.write(
      `</sheetData>${filter}${merges}<pageMargins left="0.5" right="0.5" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>` +
        `<pageSetup orientation="landscape"/>${drawing ? '<drawing r:id="rId1"/>' : ''}</worksheet>`,
    );
    return { ...rows, end: this.row };
  }
}

function valueCell(ref: string, s: number, v: string | number | boolean | null): string {
  if (v === null || v === '') return `<c r="${ref}" s="${s}"/>`;
  if (typeof v === 'number' && Number.isFinite(v)) return `<c r="${ref}" s="${s}"><v>${v}</v></c>`;
  return `<c r="${ref}" s="${s}" t="inlineStr"><is>${textEl(String(v))}</is></c>`;
}

function richText(runs: Run[]): string {
  return `<is>${runs.map((r) => `<r>${fontXml(r, 'rPr', 'rFont')}${textEl(r.text)}</r>`).join('')}</is>`;
}
