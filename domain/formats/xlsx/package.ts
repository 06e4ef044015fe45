// One .xlsx file written as a stream: the small fixed parts first, then the worksheet XML fed in
// chunks through yazl's deflate into the file, with backpressure at every step, so memory holds
// one chunk and zlib's window whatever the row count.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { esc, NS_MAIN, NS_REL, XML_HEAD } from './xml.js';

// Small chunks keep the XML not yet compressed small, which bounds how far a part can overshoot.
const CHUNK = 1 << 14;
const CT = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const contentTypes =
  `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  `<Override PartName="/xl/workbook.xml" ContentType="${CT}.sheet.main+xml"/>` +
  `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${CT}.worksheet+xml"/>` +
  `<Override PartName="/xl/styles.xml" ContentType="${CT}.styles+xml"/>` +
  '</Types>';
const rootRels =
  `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  `<Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const workbookRels =
  `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
  `<Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/></Relationships>`;
const workbook = (sheetName: string) =>
  `${XML_HEAD}<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><bookViews><workbookView/></bookViews>` +
  `<sheets><sheet name="${esc(sheetName)}" sheetId="1" r:id="rId1"/></sheets></workbook>`;

/** Counts and hashes the bytes on their way to the file: the part's size and sha256 without a re-read. */
export class Meter extends Transform {
  bytes = 0;
  private readonly hash = createHash('sha256');
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.bytes += chunk.length;
    this.hash.update(chunk);
    this.push(chunk);
    cb();
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}

export interface PackageOptions {
  path: string;
  sheetName: string;
  stylesXml: string;
  /** zlib level for the worksheet (1 fastest … 9 smallest). */
  level: number;
  /** Entry timestamps: fixed per task, so re-rendering the same data gives the same bytes. */
  mtime: Date;
}

export class XlsxPackage {
  private readonly zip = new yazl.ZipFile();
  private readonly sheet = new PassThrough({ highWaterMark: CHUNK });
  private readonly meter = new Meter();
  private readonly done: Promise<void>;
  private pending = '';
  /** Uncompressed worksheet bytes handed to the compressor so far. */
  sheetBytes = 0;

  constructor(opts: PackageOptions) {
    const entry = { mtime: opts.mtime, compressionLevel: 6 };
    this.zip.addBuffer(Buffer.from(contentTypes), '[Content_Types].xml', entry);
    this.zip.addBuffer(Buffer.from(rootRels), '_rels/.rels', entry);
    this.zip.addBuffer(Buffer.from(workbook(opts.sheetName)), 'xl/workbook.xml', entry);
    this.zip.addBuffer(Buffer.from(workbookRels), 'xl/_rels/workbook.xml.rels', entry);
    this.zip.addBuffer(Buffer.from(opts.stylesXml), 'xl/styles.xml', entry);
    this.zip.addReadStream(this.sheet, 'xl/worksheets/sheet1.xml', { mtime: opts.mtime, compressionLevel: opts.level });
    this.done = pipeline(this.zip.outputStream, this.meter, createWriteStream(opts.path, { highWaterMark: CHUNK }));
    // Surfaced by close(); a failure here must not be an unhandled rejection meanwhile.
    this.done.catch(() => {});
  }

  /** Compressed bytes that reached the file so far. */
  get bytes(): number {
    return this.meter.bytes;
  }

  /** Upper bound of the worksheet bytes written here but not yet inside yazl (UTF-8 ≤ 3 bytes a unit). */
  get queued(): number {
    return this.pending.length * 3 + this.sheet.writableLength + this.sheet.readableLength;
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
    const buf = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    this.sheetBytes += buf.length;
    if (!this.sheet.write(buf)) await Promise.race([once(this.sheet, 'drain'), this.done]);
  }

  async close(): Promise<{ bytes: number; sha256: string }> {
    await this.flush();
    this.sheet.end();
    this.zip.end();
    await this.done;
    return { bytes: this.meter.bytes, sha256: this.meter.digest() };
  }

  /** Stops writing after a failure; the caller removes the file. */
  abort(err: Error): void {
    this.sheet.destroy(err);
    (this.zip.outputStream as unknown as NodeJS.ReadableStream & { destroy(e: Error): void }).destroy(err);
  }
}
