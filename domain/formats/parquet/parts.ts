// Parquet output: rows gathered into row groups (bounded by rows and by their JSON's bytes, so
// memory stays bounded however big the file) in typed column buffers, each group encoded and
// flushed to disk by our writer (file.ts; docs/adr/0050-parquet-writer.md), split into parts like every
// type: a part ends at a row group once the next would take it past the size or row limit.
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { SchemaElement } from 'hyparquet';
import type { Column } from '../columns.js';
import type { WrittenPart } from '../part.js';
import { checkPartNumber, type SplitLimits } from '../split.js';
import { ownReader } from '../own.js';
import { ColumnValues } from './columns.js';
import { FileSink, ParquetFile } from './file.js';
import { readMoment } from './dates.js';
import * as V from './scan.js';
import type { LineScanner, ScannedRow } from './scan.js';
import type { EncodedGroups } from './encode.js';
import { converter, firstOfKey, type Kind, sameKinds, uniqueKeys } from './types.js';

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

/**
 * A row group's values gathered from rows, into each written column's typed buffers (columns.ts):
 * a value straight from its bytes where its kind allows, else through the column's converter (a
 * value the kind cannot hold throws render_failed, naming row and column). Shared by the render's
 * writer and the lanes' groups (groups.ts), so a group is the same whichever encodes it.
 */
export class GroupFiller {
  /** The written columns (a key the template repeats is one field, at its first place). */
  readonly columns: Column[];
  readonly kinds: Kind[];
  readonly group: ColumnValues[];
  private readonly convert: Array<(v: unknown, row: number) => unknown>;
  private readonly read: Array<(row: Record<string, unknown>) => unknown>;
  /** Each written column's place among the scanner's keys (uniqueKeys of all the columns). */
  private readonly slot: number[];
  /** The export's row number of the next row (for a misfit's sentence). */
  rowNo = 0;

  constructor(columns: Column[], kinds: Kind[]) {
    // A key the template repeats ("2024 › amount", "2025 › amount") is one field, at its first
    // place and with its first type: the values are the same, and a schema's names must differ
    // (pyarrow refuses a repeated one), as a JSON Lines object's keys do.
    const first = firstOfKey(columns);
    this.columns = columns.filter((_, i) => first[i]);
    this.kinds = kinds.filter((_, i) => first[i]);
    this.convert = this.columns.map((c, i) => converter(c, this.kinds[i]!));
    this.read = this.columns.map((c) => ownReader(c.key));
    this.group = this.kinds.map((k) => new ColumnValues(k));
    const keys = uniqueKeys(columns);
    this.slot = this.columns.map((c) => keys.indexOf(c.key));
  }

  get rows(): number {
    return this.group[0]?.rows ?? 0;
  }

  /** The row `scanner` has just read (a staged line, or a row of staged values) in `b`. */
  addScanned(scanner: ScannedRow, b: Buffer): void {
    const at = this.rowNo++;
    for (let c = 0; c < this.columns.length; c++) {
      const k = this.slot[c]!;
      if (!this.fast(this.group[c]!, this.kinds[c]!, scanner, k, b)) this.group[c]!.addValue(this.convert[c]!(scanner.decoded(k), at));
    }
  }

  /** The value stored straight from its bytes where its kind allows; false: convert it instead. */
  private fast(col: ColumnValues, kind: Kind, s: ScannedRow, k: number, b: Buffer): boolean {
    const t = s.kinds[k]!;
    if (t <= V.NULL) {
      col.addNull();
      return true;
    }
    switch (kind) {
      case 'string':
        // An escaped string's bounds include its quotes.
        if (t === V.ESCAPED) return col.addEscaped(b, s.starts[k]! + 1, s.ends[k]! - 1);
        if (t !== V.TEXT) return false;
        col.addUtf8(b, s.starts[k]!, s.ends[k]!);
        return true;
      case 'double':
        if (t !== V.INT && t !== V.NUMBER_FAST && t !== V.NUMBER) return false;
        // Read from the scanner's array where it was valued: a double returned by a call is boxed.
        col.addDouble(t === V.NUMBER ? s.numberAt(k) : s.numbers[k]!);
        return true;
      case 'int64':
        if (t !== V.INT) return false;
        col.addSafeInt(s.numbers[k]!);
        return true;
      case 'boolean':
        if (t !== V.TRUE && t !== V.FALSE) return false;
        col.addBoolean(t === V.TRUE);
        return true;
      case 'date':
      case 'timestamp':
      case 'timestamp_utc':
        // A text that is no moment ("" is null, else the error's sentence) goes the converter's way.
        if (t !== V.TEXT || !s.momentOf(k)) return false;
        if (kind === 'date') col.addInt32(readMoment.days);
        else col.addSafeInt(readMoment.ms);
        return true;
      default:
        return false;
    }
  }

  /** One source row, parsed. */
  add(row: Record<string, unknown>): void {
    const at = this.rowNo++;
    for (let c = 0; c < this.columns.length; c++) this.group[c]!.addValue(this.convert[c]!(this.read[c]!(row), at));
  }

  reset(): void {
    for (const g of this.group) g.reset();
  }
}

export class ParquetParts {
  private readonly columns: Column[];
  private readonly schema: SchemaElement[];
  private readonly fill: GroupFiller;
  private file: { writer: ParquetFile; sink: FileSink; path: string; rows: number } | null = null;
  private groupBytes = 0;
  private lastGroupBytes = 0;
  private readonly parts: WrittenPart[] = [];

  constructor(
    columns: Column[],
    kinds: Kind[],
    private readonly limits: SplitLimits,
    private readonly pathFor: (n: number) => string,
  ) {
    this.fill = new GroupFiller(columns, kinds);
    this.columns = this.fill.columns;
    this.schema = [{ name: 'root', num_children: this.columns.length }, ...this.columns.map((c, i) => element(c.key, this.fill.kinds[i]!))];
  }

  /** The written columns' kinds (a repeated key's once). */
  get kinds(): readonly Kind[] {
    return this.fill.kinds;
  }

  /**
   * One staged line read in place by `scanner` (made for `uniqueKeys` of the columns); null when
   * the scanner cannot read it (the caller parses it and calls add()), else as add().
   */
  addLine(scanner: LineScanner, b: Buffer, from: number, to: number, jsonBytes: number): boolean | null {
    if (!scanner.scan(b, from, to)) return null;
    return this.addScanned(scanner, b, jsonBytes);
  }

  /** The row `scanner` has just read (its scan() answered true, or a row of staged values) in `b`; as add(). */
  addScanned(scanner: ScannedRow, b: Buffer, jsonBytes: number): boolean {
    this.fill.addScanned(scanner, b);
    return this.added(jsonBytes);
  }

  /** Adds one source row (its JSON's length counts toward the group's bytes); true: flushGroup is due. */
  add(row: Record<string, unknown>, jsonBytes: number): boolean {
    this.fill.add(row);
    return this.added(jsonBytes);
  }

  /** A row added: true when its group is full (rows, bytes, or the part's row limit). */
  private added(jsonBytes: number): boolean {
    this.groupBytes += jsonBytes;
    const rows = this.fill.rows;
    const inPart = (this.file?.rows ?? 0) + rows;
    return rows >= GROUP_ROWS || this.groupBytes >= GROUP_BYTES || inPart >= this.limits.maxRows;
  }

  /**
   * Row groups encoded already (a piece's, encoded where it was staged: groups.ts), written as
   * they are after the rows gathered so far; false, nothing of them written, when they were
   * encoded under other kinds than this file's or would take the part past its row limit (the
   * caller then adds their rows).
   */
  async addEncoded(groups: EncodedGroups): Promise<boolean> {
    if (!sameKinds(groups.kinds, this.fill.kinds)) return false;
    await this.flushGroup();
    if ((this.file?.rows ?? 0) + groups.rows > this.limits.maxRows) return false;
    for (const g of groups.groups) {
      const file = this.file ?? this.open();
      const before = file.sink.bytes;
      await file.writer.appendEncoded(g);
      file.rows += g.rows;
      this.lastGroupBytes = file.sink.bytes - before;
      if (file.rows >= this.limits.maxRows || file.sink.bytes + this.lastGroupBytes > this.limits.maxBytes) await this.close();
    }
    this.fill.rowNo += groups.rows;
    return true;
  }

  /** Writes the gathered rows as one row group (and ends the part when the next would not fit). */
  async flushGroup(): Promise<void> {
    const rows = this.fill.rows;
    if (rows === 0) return;
    const file = this.file ?? this.open();
    const before = file.sink.bytes;
    // One row group: encoded, flushed to the file, and the buffers kept for the next group.
    await file.writer.writeGroup(this.fill.group);
    file.rows += rows;
    this.lastGroupBytes = file.sink.bytes - before;
    this.fill.reset();
    this.groupBytes = 0;
    // The next group would not fit: this part ends here (a part always holds at least one group).
    if (file.rows >= this.limits.maxRows || file.sink.bytes + this.lastGroupBytes > this.limits.maxBytes) await this.close();
  }

  private open(): NonNullable<ParquetParts['file']> {
    checkPartNumber(this.parts.length + 1, this.limits);
    const path = this.pathFor(this.parts.length + 1);
    const sink = new FileSink(createWriteStream(path, { highWaterMark: 1 << 20 }));
    const writer = new ParquetFile(sink, this.schema, this.columns.map((c) => c.key));
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
