// A worksheet's looks, registered once per render in the workbook's style table (shared by all its
// sheets): every cell style index the writer needs is known before the first row, so styles.xml
// can be written ahead of the worksheets.
import type { CellLook, DataColumn, HeaderCell, RowTitle, SheetLayout } from '../template/layout.js';
import { DEFAULT_FORMATS } from '../template/values.js';
import { StyleSheet, type XfSpec } from './styles.js';

const HEADER_FILL = 'FFD9E1F2';
const KEY_FILL = 'FFF2F2F2';
export const TITLE_SIZE = 16;

/** Style indexes of one data column: [column look, then each condition's], each also with quotePrefix. */
export interface ColumnStyles {
  plain: number[];
  quoted: number[];
}

const over = (base: XfSpec, l: CellLook): XfSpec => ({
  ...base,
  ...(l.color !== undefined ? { color: l.color } : {}),
  ...(l.bold !== undefined ? { bold: l.bold } : {}),
  ...(l.italic !== undefined ? { italic: l.italic } : {}),
  ...(l.bgColor !== undefined ? { fill: l.bgColor } : {}),
});

export class Looks {
  readonly title: number;
  readonly summary: number;
  readonly areaKey: number;
  readonly areaValue: number;
  readonly areaNumber: number;
  readonly areaPair: number;
  private readonly headerBase: XfSpec = { bold: true, fill: HEADER_FILL, border: true, h: 'center', v: 'middle', wrap: true };
  readonly header: number;
  private readonly rowTitleBase: XfSpec = { bold: true, border: true, h: 'center', v: 'middle', wrap: true };
  readonly rowTitle: number;
  readonly columns: ColumnStyles[];
  private readonly headerCells = new Map<HeaderCell, number>();
  private readonly rowTitles = new Map<number, number>();

  constructor(
    layout: SheetLayout,
    /** The workbook's style table; each distinct look is one entry however many sheets use it. */
    readonly sheet: StyleSheet = new StyleSheet(),
  ) {
    this.title = sheet.xf({ bold: true, size: TITLE_SIZE, h: 'center', v: 'middle' });
    this.summary = sheet.xf({ h: 'left', v: 'top', wrap: true });
    this.areaKey = sheet.xf({ bold: true, fill: KEY_FILL, border: true, h: 'center', v: 'middle', wrap: true });
    this.areaValue = sheet.xf({ border: true, h: 'left', v: 'middle', wrap: true });
    this.areaNumber = sheet.xf({ border: true, h: 'left', v: 'middle' });
    this.areaPair = sheet.xf({ border: true, h: 'left', v: 'middle', wrap: true });
    this.header = sheet.xf(this.headerBase);
    this.rowTitle = sheet.xf(this.rowTitleBase);
    this.columns = layout.columns.map((c) => this.columnStyles(c));
    for (const h of layout.headerCells) this.headerCells.set(h, sheet.xf(over(this.headerBase, h)));
    for (const leaf of layout.rowLeaves) for (const t of leaf.path) this.rowTitles.set(t.id, sheet.xf(over(this.rowTitleBase, t)));
  }

  headerCell(h: HeaderCell): number {
    return this.headerCells.get(h) ?? this.header;
  }

  rowTitleCell(t: RowTitle): number {
    return this.rowTitles.get(t.id) ?? this.rowTitle;
  }

  private columnStyles(c: DataColumn): ColumnStyles {
    const numFmt = c.format ?? (c.type ? DEFAULT_FORMATS[c.type] : undefined);
    // The design's default alignment is centre, middle.
    const base = over({ numFmt, border: true, h: c.align ?? 'center', v: c.valign ?? 'middle' }, c);
    const specs = [base, ...c.conditions.map((k) => over(base, k.look))];
    return { plain: specs.map((s) => this.sheet.xf(s)), quoted: specs.map((s) => this.sheet.xf({ ...s, quotePrefix: true })) };
  }
}
