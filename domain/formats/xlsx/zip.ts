// The zip container of one .xlsx, written front to back: small parts whole (sizes in the local
// header), worksheets streamed (sizes in a data descriptor after the data), then the central
// directory; ZIP64 records only where a size or offset needs them. Written here rather than with
// yazl because the worksheet is nearly all of the work: its CRC-32 is zlib's native one (yazl's is
// JavaScript on the main thread), and its bytes go through a single deflate stream with large
// chunks instead of five stream stages of 16 KiB each.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw, deflateRawSync, type DeflateRaw, type ZlibOptions } from 'node:zlib';
import { Meter } from '../meter.js';

/** Bytes of compressed output zlib hands on at a time (also the largest piece not yet in `queued`). */
export const DEFLATE_OUT = 1 << 16;
const UTF8_NAME = 1 << 11;
const SIZES_AFTER = 1 << 3;
const MAX32 = 0xfffffffe;

interface Entry {
  name: Buffer;
  flags: number;
  method: number;
  crc: number;
  csize: number;
  size: number;
  offset: number;
}

/** DOS date and time in local time, as zip tools read them (1980 at the earliest). */
function dosTime(d: Date): { date: number; time: number } {
  const t = d.getFullYear() < 1980 ? new Date(1980, 0, 1) : d;
  return {
    date: t.getDate() | ((t.getMonth() + 1) << 5) | ((t.getFullYear() - 1980) << 9),
    time: (t.getSeconds() >> 1) | (t.getMinutes() << 5) | (t.getHours() << 11),
  };
}

export class ZipStream {
  private readonly meter = new Meter();
  readonly done: Promise<void>;
  private readonly entries: Entry[] = [];
  private readonly dos: { date: number; time: number };
  private offset = 0;

  constructor(path: string, mtime: Date) {
    this.dos = dosTime(mtime);
    this.done = pipeline(this.meter, createWriteStream(path, { highWaterMark: DEFLATE_OUT }));
    // Surfaced by close(); a failure here must not be an unhandled rejection meanwhile.
    this.done.catch(() => {});
  }

  /** Compressed bytes that reached the file's stream so far (close() answers their sha256). */
  get bytes(): number {
    return this.meter.bytes;
  }

  /** Bytes handed to the file's stream and not yet through the meter. */
  get backlog(): number {
    return this.meter.writableLength;
  }

  private put(buf: Buffer): boolean {
    this.offset += buf.length;
    return this.meter.write(buf);
  }

  private header(e: Entry): Buffer {
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(e.flags, 6);
    h.writeUInt16LE(e.method, 8);
    h.writeUInt16LE(this.dos.time, 10);
    h.writeUInt16LE(this.dos.date, 12);
    if (!(e.flags & SIZES_AFTER)) {
      h.writeUInt32LE(e.crc, 14);
      h.writeUInt32LE(e.csize, 18);
      h.writeUInt32LE(e.size, 22);
    }
    h.writeUInt16LE(e.name.length, 26);
    return Buffer.concat([h, e.name]);
  }

  /** A small part (a few KiB: the next worksheet chunk's backpressure covers it), deflated at once. */
  addBuffer(name: string, data: Buffer, level = 6): void {
    const body = deflateRawSync(data, { level });
    const e: Entry = { name: Buffer.from(name), flags: UTF8_NAME, method: 8, crc: crc32(data), csize: body.length, size: data.length, offset: this.offset };
    this.entries.push(e);
    this.put(this.header(e));
    this.put(body);
  }

  /**
   * A streamed part: write its bytes to the returned entry, then end it before the next part.
   * zlib takes up to `ahead` bytes before it asks the writer to wait, so the next chunk can be
   * built while one is compressed on libuv's thread pool.
   */
  openEntry(name: string, level: number, ahead: number): StreamedEntry {
    const e: Entry = { name: Buffer.from(name), flags: UTF8_NAME | SIZES_AFTER, method: 8, crc: 0, csize: 0, size: 0, offset: this.offset };
    this.entries.push(e);
    this.put(this.header(e));
    // zlib's streams pass stream options on to Transform (its typings list only zlib's own).
    const opts: ZlibOptions & { writableHighWaterMark: number } = { level, chunkSize: DEFLATE_OUT, writableHighWaterMark: ahead };
    const z = createDeflateRaw(opts);
    return new StreamedEntry(e, z, this.meter, () => this.finish(e));
  }

  private finish(e: Entry): void {
    this.offset += e.csize;
    const big = e.csize > MAX32 || e.size > MAX32;
    const d = Buffer.alloc(big ? 24 : 16);
    d.writeUInt32LE(0x08074b50, 0);
    d.writeUInt32LE(e.crc, 4);
    if (big) {
      d.writeBigUInt64LE(BigInt(e.csize), 8);
      d.writeBigUInt64LE(BigInt(e.size), 16);
    } else {
      d.writeUInt32LE(e.csize, 8);
      d.writeUInt32LE(e.size, 12);
    }
    this.put(d);
  }

  private central(e: Entry): Buffer {
    const big = e.csize > MAX32 || e.size > MAX32 || e.offset > MAX32;
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE((3 << 8) | 63, 4);
    c.writeUInt16LE(big ? 45 : 20, 6);
    c.writeUInt16LE(e.flags, 8);
    c.writeUInt16LE(e.method, 10);
    c.writeUInt16LE(this.dos.time, 12);
    c.writeUInt16LE(this.dos.date, 14);
    c.writeUInt32LE(e.crc, 16);
    c.writeUInt32LE(big ? 0xffffffff : e.csize, 20);
    c.writeUInt32LE(big ? 0xffffffff : e.size, 24);
    c.writeUInt16LE(e.name.length, 28);
    c.writeUInt16LE(big ? 28 : 0, 30);
    c.writeUInt32LE((0o100664 << 16) >>> 0, 38);
    c.writeUInt32LE(big ? 0xffffffff : e.offset, 42);
    if (!big) return Buffer.concat([c, e.name]);
    const x = Buffer.alloc(28);
    x.writeUInt16LE(1, 0);
    x.writeUInt16LE(24, 2);
    x.writeBigUInt64LE(BigInt(e.size), 4);
    x.writeBigUInt64LE(BigInt(e.csize), 12);
    x.writeBigUInt64LE(BigInt(e.offset), 20);
    return Buffer.concat([c, e.name, x]);
  }

  /** The central directory and its end records; resolves once the file is written. */
  async close(): Promise<{ bytes: number; sha256: string }> {
    const start = this.offset;
    for (const e of this.entries) this.put(this.central(e));
    const size = this.offset - start;
    const n = this.entries.length;
    if (n >= 0xffff || start > MAX32 || size > MAX32) this.zip64End(n, size, start);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(Math.min(n, 0xffff), 8);
    end.writeUInt16LE(Math.min(n, 0xffff), 10);
    end.writeUInt32LE(Math.min(size, 0xffffffff), 12);
    end.writeUInt32LE(Math.min(start, 0xffffffff), 16);
    this.put(end);
    this.meter.end();
    await this.done;
    return { bytes: this.meter.bytes, sha256: this.meter.digest() };
  }

  private zip64End(n: number, size: number, start: number): void {
    const at = this.offset;
    const r = Buffer.alloc(56);
    r.writeUInt32LE(0x06064b50, 0);
    r.writeBigUInt64LE(44n, 4);
    r.writeUInt16LE((3 << 8) | 63, 12);
    r.writeUInt16LE(45, 14);
    r.writeBigUInt64LE(BigInt(n), 24);
    r.writeBigUInt64LE(BigInt(n), 32);
    r.writeBigUInt64LE(BigInt(size), 40);
    r.writeBigUInt64LE(BigInt(start), 48);
    const l = Buffer.alloc(20);
    l.writeUInt32LE(0x07064b50, 0);
    l.writeBigUInt64LE(BigInt(at), 8);
    l.writeUInt32LE(1, 16);
    this.put(Buffer.concat([r, l]));
  }

  /** Stops after a failure: the file's stream ends with the error (the caller removes the file). */
  abort(err: Error): void {
    this.meter.destroy(err);
  }
}

/** One streamed part: bytes in, CRC-32 and sizes counted, deflated into the file's stream. */
export class StreamedEntry {
  constructor(
    private readonly e: Entry,
    private readonly z: DeflateRaw,
    private readonly out: Meter,
    private readonly onEnd: () => void,
  ) {
    z.on('data', (c: Buffer) => {
      e.csize += c.length;
    });
    z.pipe(out, { end: false });
    z.on('error', (err) => out.destroy(err));
  }

  /** Uncompressed bytes given to zlib and not yet compressed, and compressed bytes not yet handed on. */
  get queued(): number {
    return this.z.writableLength + this.z.readableLength;
  }

  /** Returns a promise only when zlib is behind: the caller awaits it (the backpressure). */
  write(buf: Buffer, done: Promise<void>): Promise<void> | undefined {
    this.e.crc = crc32(buf, this.e.crc);
    this.e.size += buf.length;
    return this.z.write(buf) ? undefined : Promise.race([once(this.z, 'drain'), done]).then(() => {});
  }

  async end(done: Promise<void>): Promise<void> {
    this.z.end();
    await Promise.race([once(this.z, 'end'), done]);
    this.onEnd();
  }

  destroy(): void {
    this.z.destroy();
  }
}
