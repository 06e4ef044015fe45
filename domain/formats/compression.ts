// Stream compression of text outputs (csv, jsonl): gzip from Node's zlib, zstd from the zstd
// library compiled to WebAssembly (@bokuweb/zstd-wasm), as Node 20's zlib has no zstd (it came in
// Node 22.15). docs/adr/0032-jsonl-parquet-compression.md says why this one.
import { Transform, type TransformCallback } from 'node:stream';
import { constants, createGzip } from 'node:zlib';
import { COMPRESSIBLE_TYPES, type Compression, type ExportType } from '../../model/task.js';
import type { TaskOptions } from '../../model/task-options.js';

/** What a compressed file's name gains after its own extension. */
export const COMPRESSED_EXT: Record<Compression, string> = { gzip: 'gz', zstd: 'zst' };

/** The compression a task asked for (only csv and jsonl can have one; the API refuses the rest). */
export function taskCompression(task: { type: ExportType; options: Pick<TaskOptions, 'compression'> }): Compression | null {
  const c = task.options.compression;
  return c && (COMPRESSIBLE_TYPES as readonly ExportType[]).includes(task.type) ? c : null;
}

/** A file's extension: `csv`, `jsonl.gz`, `csv.zst`, … */
export const fileExt = (ext: string, compression: Compression | null): string => (compression ? `${ext}.${COMPRESSED_EXT[compression]}` : ext);

/** zstd's own default level: its speed suits an export (the file is written once, read once or twice). */
const ZSTD_LEVEL = 3;
/** Input gathered into one zstd frame: bounded memory, and frames big enough to compress well. */
const ZSTD_FRAME_BYTES = 4 << 20;

let zstd: Promise<typeof import('@bokuweb/zstd-wasm')> | undefined;
/** The WebAssembly module, loaded on first use (an export without zstd never loads it). */
function loadZstd(): Promise<typeof import('@bokuweb/zstd-wasm')> {
  zstd ??= import('@bokuweb/zstd-wasm').then(async (m) => {
    await m.init();
    return m;
  });
  return zstd;
}

/**
 * zstd as a stream of frames: the format defines a file of concatenated frames as the
 * concatenation of their contents, so `zstd -d`, `zstd -t`, DuckDB and pyarrow read it as one.
 */
class ZstdFrames extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  private framed = false;

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.parts.push(chunk);
    this.size += chunk.length;
    if (this.size < ZSTD_FRAME_BYTES) return cb();
    this.frame().then(() => cb(), cb);
  }

  override _flush(cb: TransformCallback): void {
    // No input at all still makes one (empty) frame: a 0-byte file is no zstd file (`zstd -t` refuses it).
    this.frame(!this.framed).then(() => cb(), cb);
  }

  private async frame(evenEmpty = false): Promise<void> {
    if (this.size === 0 && !evenEmpty) return;
    const input = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    const { compress } = await loadZstd();
    this.push(Buffer.from(compress(input, ZSTD_LEVEL)));
    this.framed = true;
  }
}

/** A compressing stream: bytes in, the compressed file's bytes out. */
export function compressor(c: Compression): Transform {
  return c === 'gzip' ? createGzip({ level: constants.Z_DEFAULT_COMPRESSION, chunkSize: 1 << 16 }) : new ZstdFrames();
}
