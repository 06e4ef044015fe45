// The charts of one worksheet in one part, added to the package as the worksheet closes: those
// placed `right` of the table or `below` it in one drawing of the worksheet, each `sheet` one as a
// chart sheet of its own right after it. Each refers to this part's rows only, so every file of a
// split export charts its own rows.
import type { SheetChart } from '../charts.js';
import type { SheetLayout } from '../template/layout.js';
import { type CellBox, cellDrawingXml, type ChartCells, chartXml, sheetDrawingXml } from './chart-xml.js';
import type { XlsxPackage } from './package.js';
import type { PartRows } from './sheet.js';
import { sheetName, uniqueName } from './sheet-names.js';

/** A chart's size in cells beside the table, and the gap to the next one. */
const BOX = { cols: 8, rows: 18, gap: 2 };

/** Whether this part's worksheet carries a drawing: charts beside its rows, and rows to chart. */
export const hasDrawing = (charts: SheetChart[], rows: number) => rows > 0 && charts.some((c) => c.place !== 'sheet');

/** The row of the cell that holds a column's header title: a leaf's top cell in a header tree. */
function titleRow(layout: SheetLayout, tableTop: number, col: number): number {
  const bottom = layout.headerRows - 1;
  const cell = layout.headerCells.find((h) => h.col <= col && col < h.col + h.cols && h.row <= bottom && bottom < h.row + h.rows);
  return tableTop + (cell?.row ?? bottom);
}

function boxes(charts: SheetChart[], layout: SheetLayout, rows: PartRows): CellBox[] {
  const step = BOX.rows + BOX.gap;
  // Charts below start under the table, and under the charts right of a short table.
  const rightEnd = rows.tableTop + charts.filter((c) => c.place === 'right').length * step;
  const belowTop = Math.max(rows.end + 1, rightEnd);
  let right = 0;
  let below = 0;
  return charts.map((c) =>
    c.place === 'right'
      ? { col: layout.columns.length + 1, row: rows.tableTop + step * right++, cols: BOX.cols, rows: BOX.rows }
      : { col: 0, row: belowTop + step * below++, cols: BOX.cols, rows: BOX.rows },
  );
}

/**
 * Adds the part's chart parts after its worksheet `sheet` was ended (nothing when it has no rows).
 * A chart sheet takes neither a name of this file nor one `reserved` for the workbook's worksheets.
 */
export function addSheetCharts(pkg: XlsxPackage, sheet: string, charts: SheetChart[], layout: SheetLayout, rows: PartRows, reserved: (name: string) => boolean = () => false): void {
  if (rows.dataRows === 0 || charts.length === 0) return;
  const cells: ChartCells = {
    sheet,
    firstRow: rows.firstData,
    lastRow: rows.firstData + rows.dataRows - 1,
    titleRow: (col) => titleRow(layout, rows.tableTop, col),
    columns: layout.columns,
  };
  const beside = charts.filter((c) => c.place !== 'sheet');
  if (beside.length) {
    pkg.addDrawing(
      cellDrawingXml(boxes(beside, layout, rows)),
      beside.map((c) => chartXml(c, cells)),
    );
  }
  for (const [i, c] of charts.filter((x) => x.place === 'sheet').entries()) {
    const name = uniqueName(sheetName(c.title, `${sheet} chart ${i + 1}`.slice(0, 31)), (n) => pkg.hasSheet(n) || reserved(n));
    pkg.addChartsheet(name, sheetDrawingXml(), chartXml(c, cells));
  }
}
