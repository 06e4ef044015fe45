// One .xlsx file written as a stream: styles first, then each worksheet's XML fed in chunks through
// yazl's deflate into the file, with backpressure at every step, so memory holds one chunk and
// zlib's window whatever the row count. The workbook, its relationships and the content types name
// the worksheets, which are known only once the part is full (a byte limit can cut a sheet
// anywhere), so they are written last: readers find zip entries through the central directory.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { Meter } from '../meter.js';
import { esc, NS_MAIN, NS_REL, XML_HEAD } from './xml.js';

// Small chunks keep the XML not yet compressed small, which bounds how far a part can overshoot.
const CHUNK = 1 << 14;
const CT = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const RELS_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';

/** What entry i of the workbook is: a worksheet (xl/worksheets/sheet<i>.xml) or a chart sheet (xl/chartsheets/sheet<i>.xml). */
type SheetKind = 'worksheet' | 'chartsheet';
const sheetPath = (kind: SheetKind, i: number) => `${kind}s/sheet${i}.xml`;
const DRAWING_CT = 'application/vnd.openxmlformats-officedocument.drawing+xml';
const CHART_CT = 'application/vnd.openxmlformats-officedocument.drawingml.chart+xml';
const count = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

const contentTypes = (kinds: SheetKind[], drawings: number, charts: number) =>
  `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  `<Override PartName="/xl/workbook.xml" ContentType="${CT}.sheet.main+xml"/>` +
  kinds.map((k, i) => `<Override PartName="/xl/${sheetPath(k, i + 1)}" ContentType="${CT}.${k}+xml"/>`).join('') +
  count(drawings).map((i) => `<Override PartName="/xl/drawings/drawing${i}.xml" ContentType="${DRAWING_CT}"/>`).join('') +
  count(charts).map((i) => `<Override PartName="/xl/charts/chart${i}.xml" ContentType="${CHART_CT}"/>`).join('') +
  `<Override PartName="/xl/styles.xml" ContentType="${CT}.styles+xml"/>` +
  '</Types>';
const rootRels = `${XML_HEAD}<Relationships xmlns="${RELS_NS}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
// Sheet i is rId<i>; the styles come after them.
const workbookRels = (kinds: SheetKind[]) =>
  `${XML_HEAD}<Relationships xmlns="${RELS_NS}">` +
  kinds.map((k, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/${k}" Target="${sheetPath(k, i + 1)}"/>`).join('') +
  `<Relationship Id="rId${kinds.length + 1}" Type="${REL}/styles" Target="styles.xml"/></Relationships>`;
const workbook = (names: string[], filters: Array<string | undefined>) =>
  `${XML_HEAD}<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><bookViews><workbookView/></bookViews><sheets>` +
  names.map((name, i) => `<sheet name="${esc(name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
  `</sheets>${filterNames(names, filters)}</workbook>`;

/**
 * The hidden name Excel itself gives each sheet's autofilter range (_xlnm._FilterDatabase):
 * LibreOffice builds its filter from it, Excel keeps it when the filter is edited.
 */
function filterNames(names: string[], filters: Array<string | undefined>): string {
  const defined = names.flatMap((name, i) => {
    const ref = filters[i];
    if (!ref) return [];
    const absolute = ref.replace(/([A-Z]+)(\d+)/g, '$$$1$$$2');
    return [`<definedName name="_xlnm._FilterDatabase" localSheetId="${i}" hidden="1">${esc(`'${name.replaceAll("'", "''")}'!${absolute}`)}</definedName>`];
  });
  return defined.length ? `<definedNames>${defined.join('')}</definedNames>` : '';
}

const rels = (targets: { type: string; target: string }[]) =>
  `${XML_HEAD}<Relationships xmlns="${RELS_NS}">` + targets.map((t, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/${t.type}" Target="${t.target}"/>`).join('') + '</Relationships>';
// A chart sheet shows its drawing (one chart) fitted to the window.
const chartsheet = `${XML_HEAD}<chartsheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><sheetPr/><sheetViews><sheetView zoomToFit="1" workbookViewId="0"/></sheetViews>` +
  '<pageMargins left="0.5" right="0.5" top="0.75" bottom="0.75" header="0.3" footer="0.3"/><drawing r:id="rId1"/></chartsheet>';

/**
 * Upper bound of what close() still adds after the last worksheet: the workbook, its
 * relationships and the content types (a sheet name is at most 31 characters, 6 bytes each
 * escaped, twice with its filter's defined name), and every entry's local header, data descriptor and central directory record.
 */
export const trailerBytes = (sheets: number) => 2048 + 1088 * sheets;

export interface PackageOptions {
  path: string;
  stylesXml: string;
  /** zlib level for the worksheets (1 fastest … 9 smallest). */
  level: number;
  /** Entry timestamps: fixed per task, so re-rendering the same data gives the same bytes. */
  mtime: Date;
}

export class XlsxPackage {
  private readonly zip = new yazl.ZipFile();
  private readonly meter = new Meter();
  private readonly done: Promise<void>;
  /** Worksheet streams yazl has not finished reading (it reads one entry at a time, in order). */
  private readonly streams: PassThrough[] = [];
  private sheet: PassThrough | null = null;
  private readonly names: string[] = [];
  private readonly kinds: SheetKind[] = [];
  private drawings = 0;
  private charts = 0;
  /** Each sheet's autofilter range (A1 style), when it has one. */
  private readonly filters: Array<string | undefined> = [];
  private pending = '';
  /** Uncompressed worksheet bytes handed to the compressor so far. */
  sheetBytes = 0;

  constructor(private readonly opts: PackageOptions) {
    this.zip.addBuffer(Buffer.from(opts.stylesXml), 'xl/styles.xml', { mtime: opts.mtime, compressionLevel: 6 });
    this.done = pipeline(this.zip.outputStream, this.meter, createWriteStream(opts.path, { highWaterMark: CHUNK }));
    // yazl reports a failed entry as its own 'error' event: unheard, that would end the process.
    this.zip.on('error', (err: Error) => this.output.destroy(err));
    // Surfaced by close(); a failure here must not be an unhandled rejection meanwhile.
    this.done.catch(() => {});
  }

  /** Compressed bytes that reached the file so far. */
  get bytes(): number {
    return this.meter.bytes;
  }

  /** Worksheets started in this file. */
  get sheetCount(): number {
    return this.names.length;
  }

  /** Sheet names already used here, lower-cased (Excel compares them without case). */
  hasSheet(name: string): boolean {
    return this.names.some((n) => n.toLowerCase() === name.toLowerCase());
  }

  /** Upper bound of the worksheet bytes written here but not yet inside yazl (UTF-8 ≤ 3 bytes a unit). */
  get queued(): number {
    let n = this.pending.length * 3;
    for (const s of this.streams) n += s.writableLength + s.readableLength;
    return n;
  }

  /** Starts the next worksheet (the one before must have been ended). */
  startSheet(name: string): void {
    // A programmer's error (the renderer ends each sheet first), not a failure to report: a plain Error.
    if (this.sheet) throw new Error('the previous worksheet is still open');
    const sheet = new PassThrough({ highWaterMark: CHUNK });
    this.names.push(name);
    this.kinds.push('worksheet');
    this.streams.push(sheet);
    sheet.once('end', () => this.streams.splice(this.streams.indexOf(sheet), 1));
    this.zip.addReadStream(sheet, `xl/worksheets/sheet${this.names.length}.xml`, { mtime: this.opts.mtime, compressionLevel: this.opts.level });
    this.sheet = sheet;
  }

  /**
   * Appends worksheet XML. Returns a promise only when a chunk was handed on and the compressor
   * is behind: the caller awaits it, which is the backpressure (and keeps the hot path sync).
   */
  write(xml: string): Promise<void> | undefined {
    this.pending += xml;
    return this.pending.length >= CHUNK ? this.flush() : undefined;
  }

  private async flush(): Promise<void> {
    if (!this.pending) return;
    const sheet = this.sheet!;
    const buf = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    this.sheetBytes += buf.length;
    if (!sheet.write(buf)) await Promise.race([once(sheet, 'drain'), this.done]);
  }

  /** The current worksheet's autofilter range, named in the workbook when the part closes. */
  filterSheet(ref: string): void {
    this.filters[this.kinds.lastIndexOf('worksheet')] = ref;
  }

  /** Ends the current worksheet; yazl reads the next one once it has read this one to the end. */
  async endSheet(): Promise<void> {
    await this.flush();
    this.sheet!.end();
    this.sheet = null;
  }

  /**
   * Gives the worksheet just ended (its XML names drawing rId1) a drawing of these charts, chart i
   * as the drawing's rId<i>. Small parts, added while yazl still reads the worksheet: they follow it.
   */
  addDrawing(drawingXml: string, chartXmls: string[]): void {
    const sheet = this.names.length;
    this.addSmall(rels([{ type: 'drawing', target: `../drawings/drawing${this.drawings + 1}.xml` }]), `xl/worksheets/_rels/sheet${sheet}.xml.rels`);
    this.addCharts(drawingXml, chartXmls);
  }

  /** A chart sheet named `name` after the sheets so far, showing one chart. */
  addChartsheet(name: string, drawingXml: string, chartXml: string): void {
    if (this.sheet) throw new Error('the previous worksheet is still open');
    this.names.push(name);
    this.kinds.push('chartsheet');
    const i = this.names.length;
    this.addSmall(chartsheet, `xl/${sheetPath('chartsheet', i)}`);
    this.addSmall(rels([{ type: 'drawing', target: `../drawings/drawing${this.drawings + 1}.xml` }]), `xl/chartsheets/_rels/sheet${i}.xml.rels`);
    this.addCharts(drawingXml, [chartXml]);
  }

  private addCharts(drawingXml: string, chartXmls: string[]): void {
    const d = ++this.drawings;
    const first = this.charts + 1;
    this.charts += chartXmls.length;
    this.addSmall(drawingXml, `xl/drawings/drawing${d}.xml`);
    this.addSmall(rels(chartXmls.map((_, k) => ({ type: 'chart', target: `../charts/chart${first + k}.xml` }))), `xl/drawings/_rels/drawing${d}.xml.rels`);
    chartXmls.forEach((xml, k) => this.addSmall(xml, `xl/charts/chart${first + k}.xml`));
  }

  private addSmall(xml: string, name: string): void {
    this.zip.addBuffer(Buffer.from(xml), name, { mtime: this.opts.mtime, compressionLevel: 6 });
  }

  async close(): Promise<{ bytes: number; sha256: string }> {
    if (this.sheet) await this.endSheet();
    const entry = { mtime: this.opts.mtime, compressionLevel: 6 };
    this.zip.addBuffer(Buffer.from(workbook(this.names, this.filters)), 'xl/workbook.xml', entry);
    this.zip.addBuffer(Buffer.from(workbookRels(this.kinds)), 'xl/_rels/workbook.xml.rels', entry);
    this.zip.addBuffer(Buffer.from(rootRels), '_rels/.rels', entry);
    this.zip.addBuffer(Buffer.from(contentTypes(this.kinds, this.drawings, this.charts)), '[Content_Types].xml', entry);
    this.zip.end();
    await this.done;
    return { bytes: this.meter.bytes, sha256: this.meter.digest() };
  }

  private get output(): Readable {
    return this.zip.outputStream as Readable;
  }

  /**
   * Stops writing after a failure; the caller removes the file. The worksheet stream is destroyed
   * without the error: nothing listens to its 'error' (yazl only reads it), and an unheard 'error'
   * event would end the process. The zip's stream carries the error into the pipeline instead.
   */
  abort(err: Error): void {
    this.sheet?.destroy();
    this.output.destroy(err);
  }
}
