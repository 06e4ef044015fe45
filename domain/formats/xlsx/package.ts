// One .xlsx file written as a stream: styles first, then each worksheet's XML fed in chunks through
// one deflate stream into the file (zip.ts), with backpressure at every step, so memory holds a
// chunk or two and zlib's window whatever the row count. The workbook, its relationships and the content types name
// the worksheets, which are known only once the part is full (a byte limit can cut a sheet
// anywhere), so they are written last: readers find zip entries through the central directory.
import { esc, NS_MAIN, NS_REL, XML_HEAD } from './xml.js';
import { type StreamedEntry, ZipStream } from './zip.js';

/**
 * Worksheet bytes gathered before they are handed to zlib: large enough that the per-chunk costs
 * (a stream write, a zlib job) vanish, small enough to bound memory. What is queued counts against
 * a part's byte limit as if it would not compress, so a small limit takes smaller chunks (chunkFor).
 */
export const CHUNK = 1 << 17;
const MIN_CHUNK = 1 << 14;

/** The chunk for parts of at most `maxBytes`: a 128th of it, between 16 KiB and CHUNK. */
export const chunkFor = (maxBytes: number) => Math.max(MIN_CHUNK, Math.min(CHUNK, Math.floor(maxBytes / 128)));

/**
 * zlib level of the worksheets. Node's zlib at 5 makes files as small as at 6 on worksheet XML
 * (±2 %, and no larger than rust_xlsxwriter's level 6) in about half the time: level 6 only adds a
 * longer match search, which repetitive XML hardly needs (ADR 0051).
 */
export const SHEET_LEVEL = 5;
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
  /** Bytes of XML gathered before zlib gets them (default CHUNK; chunkFor a byte limit). */
  chunk?: number | undefined;
  /** Entry timestamps: fixed per task, so re-rendering the same data gives the same bytes. */
  mtime: Date;
}

export class XlsxPackage {
  private readonly zip: ZipStream;
  private sheet: StreamedEntry | null = null;
  private readonly names: string[] = [];
  private readonly kinds: SheetKind[] = [];
  private drawings = 0;
  private charts = 0;
  /** Each sheet's autofilter range (A1 style), when it has one. */
  private readonly filters: Array<string | undefined> = [];
  private readonly chunk: number;
  /** The chunk being filled: each piece of XML is encoded into it as it comes (no string is built up). */
  private buf: Buffer;
  private used = 0;

  constructor(private readonly opts: PackageOptions) {
    this.chunk = opts.chunk ?? CHUNK;
    this.buf = Buffer.allocUnsafe(this.chunk);
    this.zip = new ZipStream(opts.path, opts.mtime);
    this.addSmall(opts.stylesXml, 'xl/styles.xml');
  }

  /** Compressed bytes that reached the file so far. */
  get bytes(): number {
    return this.zip.bytes;
  }

  /** Worksheets started in this file. */
  get sheetCount(): number {
    return this.names.length;
  }

  /** Sheet names already used here, lower-cased (Excel compares them without case). */
  hasSheet(name: string): boolean {
    return this.names.some((n) => n.toLowerCase() === name.toLowerCase());
  }

  /** Worksheet bytes written here but not yet through the meter (beyond what zlib holds: PIPELINE_LAG). */
  get queued(): number {
    return this.used + (this.sheet?.queued ?? 0) + this.zip.backlog;
  }

  /** Starts the next worksheet (the one before must have been ended). */
  startSheet(name: string): void {
    // A programmer's error (the renderer ends each sheet first), not a failure to report: a plain Error.
    if (this.sheet) throw new Error('the previous worksheet is still open');
    this.names.push(name);
    this.kinds.push('worksheet');
    this.sheet = this.zip.openEntry(`xl/worksheets/sheet${this.names.length}.xml`, this.opts.level, 2 * this.chunk);
  }

  /**
   * Appends worksheet XML. Returns a promise only when a chunk was handed on and the compressor
   * is behind: the caller awaits it, which is the backpressure (and keeps the hot path sync).
   */
  write(xml: string): Promise<void> | undefined {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: room for that, or the chunk goes first.
    const most = xml.length * 3;
    if (this.used + most <= this.chunk) {
      this.used += this.buf.write(xml, this.used);
      return undefined;
    }
    const wait = this.flush();
    if (most > this.chunk) return this.handOn(Buffer.from(xml, 'utf8')) ?? wait;
    this.used = this.buf.write(xml, 0);
    return wait;
  }

  /** Hands the chunk on and starts a fresh one (zlib holds the old one until it has read it). */
  private flush(): Promise<void> | undefined {
    if (!this.used) return undefined;
    const chunk = this.buf.subarray(0, this.used);
    this.buf = Buffer.allocUnsafe(this.chunk);
    this.used = 0;
    return this.handOn(chunk);
  }

  private handOn(chunk: Buffer): Promise<void> | undefined {
    return this.sheet!.write(chunk, this.zip.done);
  }

  /** The current worksheet's autofilter range, named in the workbook when the part closes. */
  filterSheet(ref: string): void {
    this.filters[this.kinds.lastIndexOf('worksheet')] = ref;
  }

  /** Ends the current worksheet: its last bytes compressed and its sizes written. */
  async endSheet(): Promise<void> {
    await this.flush();
    const sheet = this.sheet!;
    this.sheet = null;
    await sheet.end(this.zip.done);
  }

  /**
   * Gives the worksheet just ended (its XML names drawing rId1) a drawing of these charts, chart i
   * as the drawing's rId<i>. Small parts: they follow the worksheet.
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

  /** A small part, written at once: zip entries follow one another, so never inside a worksheet. */
  private addSmall(xml: string, name: string): void {
    if (this.sheet) throw new Error('a worksheet is still open');
    this.zip.addBuffer(name, Buffer.from(xml));
  }

  async close(): Promise<{ bytes: number; sha256: string }> {
    if (this.sheet) await this.endSheet();
    this.addSmall(workbook(this.names, this.filters), 'xl/workbook.xml');
    this.addSmall(workbookRels(this.kinds), 'xl/_rels/workbook.xml.rels');
    this.addSmall(rootRels, '_rels/.rels');
    this.addSmall(contentTypes(this.kinds, this.drawings, this.charts), '[Content_Types].xml');
    return this.zip.close();
  }

  /** Stops writing after a failure; the caller removes the file. */
  abort(err: Error): void {
    this.sheet?.destroy();
    this.zip.abort(err);
  }
}
