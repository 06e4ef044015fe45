// One Parquet file written a row group at a time (ADR 0050): "PAR1", each group's column chunks
// (encode.ts) flushed to disk and hashed as soon as the group is encoded, then the footer
// (hyparquet-writer's Thrift of the file's metadata), its length and "PAR1" again.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import type { FileMetaData, RowGroup, SchemaElement } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import type { ColumnValues } from './columns.js';
import { chunkOf, encodeChunk, type EncodedGroup, EncodeWork } from './encode.js';

const MAGIC = Buffer.from('PAR1', 'latin1');

/** The file's bytes on their way to disk, hashed and counted as they go. */
export class FileSink {
  readonly hash = createHash('sha256');
  bytes = 0;
  private pending: Uint8Array[] = [];
  /** The file's write error (a full disk): raised by the next flush or the close, never left unhandled. */
  private failed: Error | null = null;
  constructor(private readonly out: WriteStream) {
    // A stream's error without a listener would end the process (the write itself returned long ago).
    out.on('error', (err) => (this.failed ??= err));
  }
  push(bytes: Uint8Array): void {
    this.pending.push(bytes);
    this.bytes += bytes.length;
  }
  async flush(): Promise<void> {
    if (this.failed) throw this.failed;
    if (this.pending.length === 0) return;
    const chunk = Buffer.concat(this.pending);
    this.pending = [];
    this.hash.update(chunk);
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }
  destroy(): void {
    this.out.destroy();
  }
  async finish(): Promise<void> {
    await this.flush();
    this.out.end();
    await once(this.out, 'close');
    if (this.failed) throw this.failed;
  }
}

export class ParquetFile {
  private readonly groups: RowGroup[] = [];
  private rows = 0;
  private readonly work = new EncodeWork();

  constructor(
    readonly sink: FileSink,
    private readonly schema: SchemaElement[],
    private readonly names: string[],
  ) {
    sink.push(MAGIC);
  }

  /** One row group from the columns' buffers (all of the same rows), written and flushed. */
  async writeGroup(columns: ColumnValues[]): Promise<void> {
    const chunks = columns.map((col, i) => {
      const enc = encodeChunk(col, this.names[i]!, this.sink.bytes, this.work);
      for (const p of enc.pieces) this.sink.push(p);
      return enc.chunk;
    });
    const rows = columns[0]!.rows;
    this.rows += rows;
    const total = chunks.reduce((s, c) => s + c.meta_data!.total_uncompressed_size, 0n);
    const compressed = chunks.reduce((s, c) => s + c.meta_data!.total_compressed_size, 0n);
    this.groups.push({ columns: chunks, total_byte_size: total, num_rows: BigInt(rows), total_compressed_size: compressed });
    await this.sink.flush();
  }

  /**
   * One row group encoded before (groups.ts): its bytes written as they are, each chunk's metadata
   * made for where it lands (a footer's offsets are the file's, so they are set here).
   */
  async appendEncoded(group: EncodedGroup): Promise<void> {
    const base = this.sink.bytes;
    this.sink.push(group.bytes);
    const chunks = group.chunks.map(({ at, summary }, i) => chunkOf(summary, this.names[i]!, base + at));
    this.rows += group.rows;
    const total = group.chunks.reduce((s, c) => s + BigInt(c.summary.uncompressed), 0n);
    this.groups.push({ columns: chunks, total_byte_size: total, num_rows: BigInt(group.rows), total_compressed_size: BigInt(group.bytes.length) });
    await this.sink.flush();
  }

  async finish(): Promise<void> {
    const w = new ByteWriter(4096);
    const meta = { version: 2, created_by: 'download-center', schema: this.schema, num_rows: BigInt(this.rows), row_groups: this.groups } as Omit<FileMetaData, 'metadata_length'>;
    writeMetadata(w, meta as FileMetaData);
    this.sink.push(w.getBytes());
    this.sink.push(MAGIC);
    await this.sink.finish();
  }
}
