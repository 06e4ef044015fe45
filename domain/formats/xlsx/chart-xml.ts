// DrawingML for the charts of one worksheet in one part: each chart's XML (xl/charts/chartN.xml)
// refers to the cells of its own part's rows ('Orders'!$B$4:$B$1003), with no cached values, so
// the writer holds no row for it and the chart follows an edit of a cell. Written when the sheet
// closes, once the rows' extent is known; a reader draws it from the cells.
import type { SheetChart } from '../charts.js';
import type { CellType } from '../template/schema.js';
import { colName, esc, NS_REL } from './xml.js';

const NS_C = 'http://schemas.openxmlformats.org/drawingml/2006/chart';
const NS_A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const NS_XDR = 'http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing';

/** Where a chart's cells are, all 0-based rows and columns of the sheet. */
export interface ChartCells {
  /** The worksheet the chart reads (this part's name for it). */
  sheet: string;
  firstRow: number;
  lastRow: number;
  /** The row whose cell holds each column's header title (a leaf's top cell in a header tree). */
  titleRow: (col: number) => number;
  /** A column's title (series names, the category axis) and its cell type. */
  columns: { title: string; type?: CellType | undefined }[];
}

/** 'It''s'!$B$4:$B$9 */
export const sheetRef = (sheet: string, c1: number, r1: number, c2 = c1, r2 = r1) => {
  const a = `$${colName(c1)}$${r1 + 1}`;
  const b = `$${colName(c2)}$${r2 + 1}`;
  return `'${sheet.replace(/'/g, "''")}'!${a === b ? a : `${a}:${b}`}`;
};

const NUMERIC: ReadonlySet<string> = new Set(['number', 'integer', 'money', 'decimal', 'percent', 'date', 'datetime']);

/** Series colours, in order (a workbook without a theme would leave them to the reader, some of which draw nothing). */
const PALETTE = ['4472C4', 'ED7D31', 'A5A5A5', 'FFC000', '5B9BD5', '70AD47', '264478', '9E480E', '636363', '997300', '255E91', '43682B'];
const fill = (i: number) => `<a:solidFill><a:srgbClr val="${PALETTE[i % PALETTE.length]}"/></a:solidFill>`;
/** A pie's slices each their colour: one data point element per row of the part, up to this many (the rest the reader's). */
const PIE_POINTS = 64;

const rich = (text: string, size: number, bold: boolean) =>
  `<c:rich><a:bodyPr/><a:lstStyle/><a:p><a:pPr><a:defRPr sz="${size}" b="${bold ? 1 : 0}"/></a:pPr><a:r><a:rPr lang="en-US" sz="${size}" b="${bold ? 1 : 0}"/><a:t>${esc(text)}</a:t></a:r></a:p></c:rich>`;
const title = (text: string, size = 1400, bold = true) => `<c:title><c:tx>${rich(text, size, bold)}</c:tx><c:overlay val="0"/></c:title>`;

function series(chart: SheetChart, cells: ChartCells): string {
  const cat = cells.columns[chart.category];
  const catRef = sheetRef(cells.sheet, chart.category, cells.firstRow, chart.categoryTo, cells.lastRow);
  // Numbers and dates as numbers (a date axis), anything else as text.
  const catXml = cat && NUMERIC.has(cat.type ?? '') && chart.categoryTo === chart.category ? `<c:cat><c:numRef><c:f>${esc(catRef)}</c:f></c:numRef></c:cat>` : `<c:cat><c:strRef><c:f>${esc(catRef)}</c:f></c:strRef></c:cat>`;
  return chart.series
    .map((col, i) => {
      const name = cells.columns[col]?.title ?? '';
      // The name's cache lets a reader show it before it reads the cells.
      const tx = `<c:tx><c:strRef><c:f>${esc(sheetRef(cells.sheet, col, cells.titleRow(col)))}</c:f><c:strCache><c:ptCount val="1"/><c:pt idx="0"><c:v>${esc(name)}</c:v></c:pt></c:strCache></c:strRef></c:tx>`;
      const val = `<c:val><c:numRef><c:f>${esc(sheetRef(cells.sheet, col, cells.firstRow, col, cells.lastRow))}</c:f></c:numRef></c:val>`;
      const look = lookOf(chart, i, cells.lastRow - cells.firstRow + 1);
      const tail = chart.type === 'line' ? '<c:smooth val="0"/>' : '';
      return `<c:ser><c:idx val="${i}"/><c:order val="${i}"/>${tx}${look}${catXml}${val}${tail}</c:ser>`;
    })
    .join('');
}

function lookOf(chart: SheetChart, i: number, points: number): string {
  if (chart.type === 'line') return `<c:spPr><a:ln w="28575" cap="rnd">${fill(i)}<a:round/></a:ln></c:spPr><c:marker><c:symbol val="none"/></c:marker>`;
  if (chart.type === 'pie') {
    const slices = Array.from({ length: Math.min(points, PIE_POINTS) }, (_, k) => `<c:dPt><c:idx val="${k}"/><c:bubble3D val="0"/><c:spPr>${fill(k)}</c:spPr></c:dPt>`);
    return `<c:spPr><a:ln><a:solidFill><a:srgbClr val="FFFFFF"/></a:solidFill></a:ln></c:spPr>${slices.join('')}`;
  }
  return `<c:spPr>${fill(i)}</c:spPr>${chart.type === 'area' ? '' : '<c:invertIfNegative val="0"/>'}`;
}

const CAT_AX = 1;
const VAL_AX = 2;
const axIds = `<c:axId val="${CAT_AX}"/><c:axId val="${VAL_AX}"/>`;

function axes(chart: SheetChart, cells: ChartCells): string {
  const horizontal = chart.type === 'bar';
  const catTitle = cells.columns[chart.category]?.title;
  const valTitle = chart.series.length === 1 ? cells.columns[chart.series[0]!]?.title : undefined;
  const axTitle = (t: string | undefined) => (t ? title(t, 1000, false) : '');
  return (
    `<c:catAx><c:axId val="${CAT_AX}"/><c:scaling><c:orientation val="${horizontal ? 'maxMin' : 'minMax'}"/></c:scaling><c:delete val="0"/>` +
    `<c:axPos val="${horizontal ? 'l' : 'b'}"/>${axTitle(catTitle)}<c:majorTickMark val="out"/><c:minorTickMark val="none"/><c:tickLblPos val="nextTo"/>` +
    `<c:crossAx val="${VAL_AX}"/><c:crosses val="autoZero"/><c:auto val="1"/><c:lblAlgn val="ctr"/><c:lblOffset val="100"/><c:noMultiLvlLbl val="0"/></c:catAx>` +
    `<c:valAx><c:axId val="${VAL_AX}"/><c:scaling><c:orientation val="minMax"/></c:scaling><c:delete val="0"/>` +
    `<c:axPos val="${horizontal ? 'b' : 'l'}"/><c:majorGridlines/>${axTitle(valTitle)}<c:numFmt formatCode="General" sourceLinked="1"/>` +
    `<c:majorTickMark val="out"/><c:minorTickMark val="none"/><c:tickLblPos val="nextTo"/><c:crossAx val="${CAT_AX}"/><c:crosses val="${horizontal ? 'max' : 'autoZero'}"/>` +
    `<c:crossBetween val="${chart.type === 'area' || chart.type === 'line' ? 'midCat' : 'between'}"/></c:valAx>`
  );
}

function plot(chart: SheetChart, cells: ChartCells): string {
  const ser = series(chart, cells);
  switch (chart.type) {
    case 'pie':
      return `<c:pieChart><c:varyColors val="1"/>${ser}<c:firstSliceAng val="0"/></c:pieChart>`;
    case 'line':
      return `<c:lineChart><c:grouping val="standard"/><c:varyColors val="0"/>${ser}<c:marker val="1"/>${axIds}</c:lineChart>${axes(chart, cells)}`;
    case 'area':
      return `<c:areaChart><c:grouping val="standard"/><c:varyColors val="0"/>${ser}${axIds}</c:areaChart>${axes(chart, cells)}`;
    default:
      return (
        `<c:barChart><c:barDir val="${chart.type === 'bar' ? 'bar' : 'col'}"/><c:grouping val="clustered"/><c:varyColors val="0"/>${ser}` +
        `<c:gapWidth val="150"/>${axIds}</c:barChart>${axes(chart, cells)}`
      );
  }
}

/** One chart part. */
export function chartXml(chart: SheetChart, cells: ChartCells): string {
  const head = chart.title ? `${title(chart.title)}<c:autoTitleDeleted val="0"/>` : '<c:autoTitleDeleted val="1"/>';
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<c:chartSpace xmlns:c="${NS_C}" xmlns:a="${NS_A}" xmlns:r="${NS_REL}">` +
    `<c:roundedCorners val="0"/><c:chart>${head}<c:plotArea><c:layout/>${plot(chart, cells)}</c:plotArea>` +
    '<c:legend><c:legendPos val="b"/><c:overlay val="0"/></c:legend><c:plotVisOnly val="1"/><c:dispBlanksAs val="gap"/></c:chart></c:chartSpace>'
  );
}

/** A chart's frame in a drawing, pointing at relationship rId<n>. */
const frame = (n: number) =>
  `<xdr:graphicFrame macro=""><xdr:nvGraphicFramePr><xdr:cNvPr id="${n + 1}" name="Chart ${n}"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr>` +
  '<xdr:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/></xdr:xfrm>' +
  `<a:graphic><a:graphicData uri="${NS_C}"><c:chart xmlns:c="${NS_C}" r:id="rId${n}"/></a:graphicData></a:graphic></xdr:graphicFrame><xdr:clientData/>`;

const drawing = (anchors: string) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<xdr:wsDr xmlns:xdr="${NS_XDR}" xmlns:a="${NS_A}" xmlns:r="${NS_REL}">${anchors}</xdr:wsDr>`;

/** A box of cells, 0-based, `to` exclusive (the anchor's far corner is the next cell's edge). */
export interface CellBox {
  col: number;
  row: number;
  cols: number;
  rows: number;
}

const corner = (tag: string, col: number, row: number) => `<xdr:${tag}><xdr:col>${col}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>${row}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:${tag}>`;

/** A worksheet's drawing: chart i (1-based) in box i, as relationship rId<i>. */
export function cellDrawingXml(boxes: CellBox[]): string {
  return drawing(boxes.map((b, i) => `<xdr:twoCellAnchor editAs="oneCell">${corner('from', b.col, b.row)}${corner('to', b.col + b.cols, b.row + b.rows)}${frame(i + 1)}</xdr:twoCellAnchor>`).join(''));
}

/** A chart sheet's drawing: the one chart over the page (the reader fits it to the window). */
export function sheetDrawingXml(): string {
  return drawing(`<xdr:absoluteAnchor><xdr:pos x="0" y="0"/><xdr:ext cx="9294091" cy="6065520"/>${frame(1)}</xdr:absoluteAnchor>`);
}
