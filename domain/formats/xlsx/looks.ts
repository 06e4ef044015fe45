// The workbook's looks, registered once per render: every cell style index the writer needs is
// known before the first row, so styles.xml can be written ahead of the worksheet.
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
  readonly sheet = new StyleSheet();
  readonly title = this.sheet.xf({ bold: true, size: TITLE_SIZE, h: 'center', v: 'middle' });
  readonly summary = this.sheet.xf({ h: 'left', v: 'top', wrap: true });
  readonly areaKey = this.sheet.xf({ bold: true, fill: KEY_FILL, border: true, h: 'center', v: 'middle', wrap: true });
  readonly areaValue = this.sheet.xf({ border: true, h: 'left', v: 'middle', wrap: true });
  readonly areaNumber = this.sheet.xf({ border: true, h: 'left', v: 'middle' });
  readonly areaPair = this.sheet.xf({ border: true, h: 'left', v: 'middle', wrap: true });
  private readonly headerBase: XfSpec = { bold: true, fill: HEADER_FILL, border: true, h: 'center', v: 'middle', wrap: true };
  readonly header = this.sheet.xf(this.headerBase);
  private readonly rowTitleBase: XfSpec = { bold: true, border: true, h: 'center', v: 'middle', wrap: true };
  readonly rowTitle = this.sheet.xf(this.rowTitleBase);
  readonly columns: ColumnStyles[];
  private readonly headerCells = new Map<HeaderCell, number>();
  private readonly rowTitles = new Map<number, number>();

  constructor(layout: SheetLayout) {
    this.columns = layout.columns.map((c) => this.columnStyles(c));
    for (const h of layout.headerCells) this.headerCells.set(h, this.sheet.xf(over(this.headerBase, h)));
    for (const leaf of layout.rowLeaves) for (const t of leaf.path) this.rowTitles.set(t.id, this.sheet.xf(over(this.rowTitleBase, t)));
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
