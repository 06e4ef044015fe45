// Parquet output: rows gathered into row groups (bounded by rows and by their JSON's bytes, so
// memory stays bounded however big the file), each group written and flushed to disk through
// hyparquet-writer (docs/adr/0032-jsonl-parquet-compression.md), split into parts like every
// type: a part ends at a row group once the next would take it past the size or row limit.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';
import type { Column } from '../columns.js';
import type { WrittenPart } from '../part.js';
import { checkPartNumber, type SplitLimits } from '../split.js';
import { ownReader } from '../own.js';
import { converter, firstOfKey, type Kind } from './types.js';

/** Rows in one row group at most: readers skip and parallelise by group. */
export const GROUP_ROWS = 50_000;
/** The rows' JSON bytes one group gathers at most: what the render holds besides the writer. */
export const GROUP_BYTES = 16 << 20;

function element(name: string, kind: Kind): SchemaElement {
  const optional = { name, repetition_type: 'OPTIONAL' } as const;
  switch (kind) {
    case 'int64':
      return { ...optional, type: 'INT64' };
    case 'double':
      return { ...optional, type: 'DOUBLE' };
    case 'boolean':
      return { ...optional, type: 'BOOLEAN' };
    case 'date':
      return { ...optional, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } };
    case 'timestamp':
      // Wall-clock time (no zone): the logical type alone, as the legacy TIMESTAMP_MILLIS means UTC.
      return { ...optional, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MILLIS' } };
    case 'timestamp_utc':
      return { ...optional, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } };
    case 'json':
      return { ...optional, type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' } };
    default:
      return { ...optional, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
  }
}

/** hyparquet-writer's buffer, emptied into the file (and the hash) after every row group. */
class FileSink extends ByteWriter {
  readonly hash = createHash('sha256');
  bytes = 0;
  /** The file's write error (a full disk): raised by the next flush or the close, never left unhandled. */
  private failed: Error | null = null;
  constructor(private readonly out: WriteStream) {
    super(1 << 20);
    // A stream's error without a listener would end the process (the write itself returned long ago).
    out.on('error', (err) => (this.failed ??= err));
  }
  async flush(): Promise<void> {
    if (this.failed) throw this.failed;
    if (this.index === 0) return;
    const chunk = Buffer.from(this.buffer.slice(0, this.index));
    this.index = 0;
    this.hash.update(chunk);
    this.bytes += chunk.length;
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }
  destroy(): void {
    this.out.destroy();
  }
  override async finish(): Promise<void> {
    await this.flush();
    this.out.end();
    await once(this.out, 'close');
    if (this.failed) throw this.failed;
  }
}

export class ParquetParts {
  private readonly columns: Column[];
  private readonly schema: SchemaElement[];
  private readonly convert: Array<(v: unknown, row: number) => unknown>;
  private readonly read: Array<(row: Record<string, unknown>) => unknown>;
  private file: { writer: ParquetWriter; sink: FileSink; path: string; rows: number } | null = null;
  private group: unknown[][];
  private groupBytes = 0;
  private lastGroupBytes = 0;
  private rowNo = 0;
  private readonly parts: WrittenPart[] = [];

  constructor(
    columns: Column[],
    kinds: Kind[],
    private readonly limits: SplitLimits,
    private readonly pathFor: (n: number) => string,
  ) {
    // A key the template repeats ("2024 › amount", "2025 › amount") is one field, at its first
    // place and with its first type: the values are the same, and a schema's names must differ
    // (pyarrow refuses a repeated one), as a JSON Lines object's keys do.
    const first = firstOfKey(columns);
    this.columns = columns.filter((_, i) => first[i]);
    kinds = kinds.filter((_, i) => first[i]);
    this.schema = [{ name: 'root', num_children: this.columns.length }, ...this.columns.map((c, i) => element(c.key, kinds[i]!))];
    this.convert = this.columns.map((c, i) => converter(c, kinds[i]!));
    this.read = this.columns.map((c) => ownReader(c.key));
    this.group = this.columns.map(() => []);
  }

  /** Adds one source row (its JSON's length counts toward the group's bytes); true: flushGroup is due. */
  add(row: Record<string, unknown>, jsonBytes: number): boolean {
    const at = this.rowNo++;
    for (let c = 0; c < this.columns.length; c++) this.group[c]!.push(this.convert[c]!(this.read[c]!(row), at));
    this.groupBytes += jsonBytes;
    const inPart = (this.file?.rows ?? 0) + this.group[0]!.length;
    return this.group[0]!.length >= GROUP_ROWS || this.groupBytes >= GROUP_BYTES || inPart >= this.limits.maxRows;
  }

  /** Writes the gathered rows as one row group (and ends the part when the next would not fit). */
  async flushGroup(): Promise<void> {
    const rows = this.group[0]?.length ?? 0;
    if (rows === 0) return;
    const file = this.file ?? this.open();
    const before = file.sink.bytes;
    const columnData = this.columns.map((c, i) => ({ name: c.key, data: this.group[i]! }));
    // One row group: the writer flushes it to the file (FileSink.flush) and answers when that is done.
    await file.writer.write({ columnData, rowGroupSize: rows });
    file.rows += rows;
    this.lastGroupBytes = file.sink.bytes - before;
    this.group = this.columns.map(() => []);
    this.groupBytes = 0;
    // The next group would not fit: this part ends here (a part always holds at least one group).
    if (file.rows >= this.limits.maxRows || file.sink.bytes + this.lastGroupBytes > this.limits.maxBytes) await this.close();
  }

  private open(): NonNullable<ParquetParts['file']> {
    checkPartNumber(this.parts.length + 1, this.limits);
    const path = this.pathFor(this.parts.length + 1);
    const sink = new FileSink(createWriteStream(path, { highWaterMark: 1 << 20 }));
    const writer = new ParquetWriter({ writer: sink, schema: this.schema, createdBy: 'download-center (hyparquet-writer)' });
    this.file = { writer, sink, path, rows: 0 };
    return this.file;
  }

  private async close(): Promise<void> {
    const { writer, sink, path, rows } = this.file!;
    await writer.finish();
    this.parts.push({ path, rows, bytes: sink.bytes, sha256: sink.hash.digest('hex') });
    this.file = null;
  }

  async finish(): Promise<WrittenPart[]> {
    await this.flushGroup();
    if (this.file || this.parts.length === 0) {
      this.file ??= this.open();
      await this.close();
    }
    return this.parts;
  }

  async discard(): Promise<void> {
    this.file?.sink.destroy();
    const paths = [...this.parts.map((p) => p.path), ...(this.file ? [this.file.path] : [])];
    await Promise.all(paths.map((p) => rm(p, { force: true })));
  }
}
