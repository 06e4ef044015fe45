// Text output (CSV, and JSON Lines the same way) split into parts by size (and rows, when a limit is
// set). A staged page that fits is copied whole, as before; only a page that crosses a part's limit
// is cut, at a record boundary. A compressed part is written through the compressor and metered
// after it: its bytes and sha256 are the compressed file's, its limit counts the text.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Compression } from '../../../model/task.js';
import { compressor } from '../compression.js';
import { Meter } from '../meter.js';
import { checkPartNumber, type SplitLimits } from '../split.js';
import type { WrittenPart } from '../part.js';

/**
 * Offsets just past each record's line break. The fragments are our own RFC 4180 output, where a
 * quote only ever opens, closes or doubles inside a quoted field, so a quote toggle is exact and
 * far cheaper than re-parsing with csv-parse; this runs only on a page that must be cut.
 */
export function recordEnds(buf: Buffer): number[] {
  const ends: number[] = [];
  let quoted = false;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i];
    if (b === 0x22) quoted = !quoted;
    else if (b === 0x0a && !quoted) ends.push(i + 1);
  }
  if (ends[ends.length - 1] !== buf.length && buf.length > 0) ends.push(buf.length);
  return ends;
}

/** Offsets just past each line of JSON Lines: a JSON text never holds a raw line feed. */
export function lineEnds(buf: Buffer): number[] {
  const ends: number[] = [];
  for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, i + 1)) ends.push(i + 1);
  if (ends[ends.length - 1] !== buf.length && buf.length > 0) ends.push(buf.length);
  return ends;
}

export interface PartsFormat {
  /** Where records end in a staged page (recordEnds for CSV, lineEnds for JSON Lines). */
  recordEnds: (buf: Buffer) => number[];
  compression: Compression | null;
}

export class CsvParts {
  private out: WriteStream | Writable | null = null;
  /** The file under `out` (itself, or the end of the compression pipeline): discard waits for its close. */
  private file: WriteStream | null = null;
  /** A compressed part: the compressor → meter → file pipeline, and its meter. */
  private piped: { done: Promise<void>; meter: Meter } | null = null;
  /** The file's write error (a full disk): raised by the next write or close, never left unhandled. */
  private failed: Error | null = null;
  private hash = createHash('sha256');
  private path = '';
  private bytes = 0;
  private rows = 0;
  private readonly parts: WrittenPart[] = [];

  constructor(
    /** BOM and header line, at the top of every part. */
    private readonly head: Buffer,
    private readonly limits: SplitLimits,
    private readonly pathFor: (n: number) => string,
    private readonly format: PartsFormat = { recordEnds, compression: null },
  ) {}

  private async write(buf: Buffer): Promise<void> {
    if (this.failed) throw this.failed;
    // Handed to the file first: the write runs on libuv's threads while this thread hashes.
    const room = this.out!.write(buf);
    if (!this.piped) this.hash.update(buf);
    this.bytes += buf.length;
    if (!room) await this.drained();
  }

  private async drained(): Promise<void> {
    // A failing pipeline never drains: its error ends the wait instead.
    await (this.piped ? Promise.race([once(this.out!, 'drain'), this.piped.done.then(() => {})]) : once(this.out!, 'drain'));
  }

  private async open(): Promise<void> {
    checkPartNumber(this.parts.length + 1, this.limits);
    this.path = this.pathFor(this.parts.length + 1);
    const file = createWriteStream(this.path, { highWaterMark: 1 << 20 });
    this.file = file;
    if (this.format.compression) {
      const meter = new Meter();
      const squeeze = compressor(this.format.compression);
      const done = pipeline(squeeze, meter, file);
      // Awaited on close, or by a write waiting for room; remembered for the next write.
      done.catch((err: Error) => (this.failed ??= err));
      this.piped = { done, meter };
      this.out = squeeze;
    } else {
      // A stream's error without a listener would end the process (the write itself returned long ago).
      file.on('error', (err) => (this.failed ??= err));
      this.piped = null;
      this.out = file;
    }
    this.hash = createHash('sha256');
    this.bytes = 0;
    this.rows = 0;
    await this.write(this.head);
  }

  private async close(): Promise<void> {
    const out = this.out!;
    out.end();
    if (this.piped) {
      await this.piped.done;
      this.parts.push({ path: this.path, rows: this.rows, bytes: this.piped.meter.bytes, sha256: this.piped.meter.digest() });
    } else {
      await once(out, 'close');
      if (this.failed) throw this.failed;
      this.parts.push({ path: this.path, rows: this.rows, bytes: this.bytes, sha256: this.hash.digest('hex') });
    }
    this.out = null;
    this.piped = null;
  }

  private fits(bytes: number, rows: number): boolean {
    return this.bytes + bytes <= this.limits.maxBytes && this.rows + rows <= this.limits.maxRows;
  }

  async page(buf: Buffer, rows: number): Promise<void> {
    if (!this.out) await this.open();
    if (this.fits(buf.length, rows)) {
      await this.write(buf);
      this.rows += rows;
      return;
    }
    let start = 0;
    let prev = 0;
    let batch = 0;
    for (const end of this.format.recordEnds(buf)) {
      // A part always takes at least one record, however long, so the export always advances.
      if (!this.fits(end - start, batch + 1) && this.rows + batch > 0) {
        await this.write(buf.subarray(start, prev));
        this.rows += batch;
        await this.close();
        await this.open();
        start = prev;
        batch = 0;
      }
      batch++;
      prev = end;
    }
    await this.write(buf.subarray(start));
    this.rows += batch;
  }

  async finish(): Promise<WrittenPart[]> {
    if (!this.out) await this.open();
    await this.close();
    return this.parts;
  }

  async discard(): Promise<void> {
    this.out?.destroy();
    // A stream destroyed while its file is still being opened creates the file once the open
    // completes: remove the paths only after it has closed, or a part outlives the discard.
    const file = this.file;
    if (file && !file.closed) {
      file.destroy();
      await once(file, 'close');
    }
    await Promise.all([...this.parts.map((p) => p.path), this.path].filter(Boolean).map((p) => rm(p, { force: true })));
  }
}
