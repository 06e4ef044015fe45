// A column chunk's pages from its typed buffers (columns.ts; ADR 0050): one data page (v1) per
// chunk, definition levels in the RLE/bit-packed hybrid, values PLAIN or, for text that repeats,
// a dictionary page and RLE_DICTIONARY indexes; every page snappy-compressed. The page header's
// and the footer's Thrift come from hyparquet-writer, whose pieces these are.
import type { ColumnChunk, Encoding, PageHeader, Statistics } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { snappyCompress } from './snappy.js';
import type { ColumnValues } from './columns.js';
import type { Kind } from './types.js';

export interface EncodedChunk {
  /** The chunk's bytes in file order (page headers and compressed pages). */
  pieces: Uint8Array[];
  bytes: number;
  chunk: ColumnChunk;
  summary: ChunkSummary;
}

const varint = (out: number[], v: number) => {
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
};

/** Definition levels (max level 1): one RLE run when nothing is null, else the hybrid of every row's. */
function levels(col: ColumnValues): Uint8Array {
  if (col.count === col.rows) {
    const out: number[] = [];
    varint(out, col.rows << 1);
    out.push(1);
    return Uint8Array.from(out);
  }
  const w = new ByteWriter(col.rows / 8 + 64);
  writeRleBitPackedHybrid(w, col.defined.subarray(0, col.rows), 1);
  return w.getBytes();
}

/** The values' bit-packed run (booleans, LSB first), no header: BOOLEAN's PLAIN encoding. */
function bitPacked(values: Int32Array): Uint8Array {
  const out = new Uint8Array((values.length + 7) >> 3);
  for (let i = 0; i < values.length; i++) if (values[i]) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

/**
 * A file's working memory, kept from chunk to chunk and dropped with the file: the chunks are
 * encoded one at a time and each buffer is consumed before its next use, so a row group's pages
 * cost no new buffers but their compressed bytes (fewer collections of the whole heap).
 */
export class EncodeWork {
  text = Buffer.alloc(0);
  raw = Buffer.alloc(0);
  readonly snappy = { room: Buffer.alloc(0) };
  table = new Int32Array(0);
  first = new Int32Array(0);
  ids = new Int32Array(0);

  /** `which` with room for n bytes at least. */
  bytes(which: 'text' | 'raw', n: number): Buffer {
    if (this[which].length < n) this[which] = Buffer.allocUnsafe(Math.max(n, this[which].length * 2));
    return this[which];
  }

  ints(which: 'table' | 'first' | 'ids', n: number): Int32Array {
    if (this[which].length < n) this[which] = new Int32Array(Math.max(n, this[which].length * 2));
    return this[which];
  }
}

/** Text values PLAIN: each a 4-byte length and its bytes (valid until the next call). */
function plainText(work: EncodeWork, col: ColumnValues, order?: Int32Array, size = col.count): Buffer {
  const { bytes, ends } = col;
  let total = 4 * size;
  if (order) for (let k = 0; k < size; k++) total += ends[order[k]!]! - (order[k] ? ends[order[k]! - 1]! : 0);
  else total += size ? ends[size - 1]! : 0;
  const out = work.bytes('text', total);
  let at = 0;
  for (let k = 0; k < size; k++) {
    const i = order ? order[k]! : k;
    const from = i ? ends[i - 1]! : 0;
    const to = ends[i]!;
    const n = to - from;
    out[at] = n & 0xff;
    out[at + 1] = (n >>> 8) & 0xff;
    out[at + 2] = (n >>> 16) & 0xff;
    out[at + 3] = n >>> 24;
    at += 4;
    // Short text byte by byte: a native copy's call costs more than the few bytes it moves.
    if (n < 48) for (let j = from; j < to; j++) out[at++] = bytes[j]!;
    else at += bytes.copy(out, at, from, to);
  }
  return out.subarray(0, total);
}

/** The dictionary indexes as one bit-packed run of the hybrid encoding, after their bit width. */
function packedIds(ids: Int32Array, width: number): Uint8Array {
  const head: number[] = [width];
  const groups = (ids.length + 7) >> 3;
  varint(head, (groups << 1) | 1);
  const out = new Uint8Array(head.length + groups * width);
  out.set(head);
  let o = head.length;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < ids.length; i++) {
    acc |= ids[i]! << bits;
    bits += width;
    while (bits >= 8) {
      out[o++] = acc & 0xff;
      acc >>>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) out[o] = acc & 0xff;
  return out;
}

/** FNV-1a of a value's bytes. */
function hashOf(b: Buffer, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let k = from; k < to; k++) h = Math.imul(h ^ b[k]!, 0x01000193);
  return h >>> 0;
}

function sameBytes(b: Buffer, a0: number, a1: number, b0: number, b1: number): boolean {
  if (a1 - a0 !== b1 - b0) return false;
  for (let k = 0; k < a1 - a0; k++) if (b[a0 + k] !== b[b0 + k]) return false;
  return true;
}

/**
 * The text's dictionary (each distinct value's first row) and every value's index in it; none
 * when it would not pay (a key or an order number). The arrays are valid until the next call with `work`.
 */
function dictionary(work: EncodeWork, col: ColumnValues): { first: Int32Array; size: number; ids: Int32Array } | null {
  const n = col.count;
  if (n === 0) return null;
  let cap = 1024;
  while (cap < n * 2) cap *= 2;
  const table = work.ints('table', cap);
  table.fill(-1, 0, cap);
  const first = work.ints('first', n);
  const ids = work.ints('ids', n);
  const { bytes, ends } = col;
  let size = 0;
  for (let i = 0; i < n; i++) {
    const from = i ? ends[i - 1]! : 0;
    const to = ends[i]!;
    for (let h = hashOf(bytes, from, to) & (cap - 1); ; h = (h + 1) & (cap - 1)) {
      const d = table[h]!;
      if (d === -1) {
        table[h] = size;
        first[size] = i;
        ids[i] = size++;
        break;
      }
      const j = first[d]!;
      if (sameBytes(bytes, j ? ends[j - 1]! : 0, ends[j]!, from, to)) {
        ids[i] = d;
        break;
      }
    }
    // More than half the values differ (or all of the first 8,192): the dictionary would not pay.
    if ((size > n >> 1 && size > 16) || (i === 8191 && size > 7372)) return null;
  }
  return { first, size, ids };
}

function page(work: EncodeWork, type: 'DATA_PAGE' | 'DICTIONARY_PAGE', raw: Uint8Array, values: number, encoding: Encoding): { head: Uint8Array; body: Uint8Array; raw: number } {
  const body = snappyCompress(raw, work.snappy);
  const header: PageHeader =
    type === 'DATA_PAGE'
      ? { type, uncompressed_page_size: raw.length, compressed_page_size: body.length, data_page_header: { num_values: values, encoding, definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' } }
      : { type, uncompressed_page_size: raw.length, compressed_page_size: body.length, dictionary_page_header: { num_values: values, encoding } };
  const w = new ByteWriter(64);
  writePageHeader(w, header);
  return { head: w.getBytes(), body, raw: raw.length };
}

/** The page's values and their encoding; a dictionary page first where text repeats. */
function values(work: EncodeWork, col: ColumnValues): { data: Uint8Array; encoding: Encoding; dict?: { plain: Buffer; size: number } } {
  if (col.physical === 'BOOLEAN') return { data: bitPacked(col.booleans()), encoding: 'PLAIN' };
  if (col.physical !== 'BYTE_ARRAY') return { data: col.fixedBytes(), encoding: 'PLAIN' };
  const dict = dictionary(work, col);
  if (!dict) return { data: plainText(work, col), encoding: 'PLAIN' };
  const width = Math.max(1, Math.ceil(Math.log2(dict.size)));
  return { data: packedIds(dict.ids.subarray(0, col.count), width), encoding: 'RLE_DICTIONARY', dict: { plain: plainText(work, col, dict.first, dict.size), size: dict.size } };
}

/** A row group encoded before its file is written (groups.ts): its chunks' bytes back to back. */
export interface EncodedGroup {
  rows: number;
  bytes: Buffer;
  /** Each column's chunk: where it starts in `bytes`, and its summary. */
  chunks: Array<{ at: number; summary: ChunkSummary }>;
}

/** A staged piece's row groups, encoded where it was staged under `kinds` (the written columns'). */
export interface EncodedGroups {
  kinds: Kind[];
  rows: number;
  groups: EncodedGroup[];
}

/**
 * What a column chunk's metadata needs besides its place: kept with a chunk encoded before its
 * file is written (groups.ts), so its metadata is made the same way once its offset is known.
 */
export interface ChunkSummary {
  physical: ColumnValues['physical'];
  /** The dictionary page's bytes (header and body) before the data page; 0: none. */
  dictionaryBytes: number;
  bytes: number;
  uncompressed: number;
  rows: number;
  nulls: number;
  bounds: { min: number | bigint; max: number | bigint } | null;
}

function statistics(s: ChunkSummary): Statistics {
  const nulls = BigInt(s.nulls);
  return s.bounds ? { null_count: nulls, min_value: s.bounds.min, max_value: s.bounds.max } : { null_count: nulls };
}

/** A column chunk's metadata, its pages written at `offset` in the file. */
export function chunkOf(s: ChunkSummary, name: string, offset: number): ColumnChunk {
  const dict = s.dictionaryBytes > 0;
  return {
    file_offset: BigInt(offset),
    meta_data: {
      type: s.physical,
      encodings: dict ? ['PLAIN', 'RLE', 'RLE_DICTIONARY'] : ['PLAIN', 'RLE'],
      path_in_schema: [name],
      codec: 'SNAPPY',
      num_values: BigInt(s.rows),
      total_uncompressed_size: BigInt(s.uncompressed),
      total_compressed_size: BigInt(s.bytes),
      data_page_offset: BigInt(offset + s.dictionaryBytes),
      dictionary_page_offset: dict ? BigInt(offset) : undefined,
      statistics: statistics(s),
    },
  };
}

/** One column chunk of a row group, to be written at `offset` in the file. */
export function encodeChunk(col: ColumnValues, name: string, offset: number, work: EncodeWork): EncodedChunk {
  const { data, encoding, dict } = values(work, col);
  const lv = levels(col);
  // The data page's bytes (compressed at once, so the working buffer serves every chunk).
  const raw = work.bytes('raw', 4 + lv.length + data.length).subarray(0, 4 + lv.length + data.length);
  raw.writeUInt32LE(lv.length, 0);
  raw.set(lv, 4);
  raw.set(data, 4 + lv.length);
  const pages = [...(dict ? [page(work, 'DICTIONARY_PAGE', dict.plain, dict.size, 'PLAIN')] : []), page(work, 'DATA_PAGE', raw, col.rows, encoding)];
  const pieces = pages.flatMap((p) => [p.head, p.body]);
  const bytes = pieces.reduce((s, p) => s + p.length, 0);
  const summary: ChunkSummary = {
    physical: col.physical,
    dictionaryBytes: dict ? pages[0]!.head.length + pages[0]!.body.length : 0,
    bytes,
    uncompressed: pages.reduce((s, p) => s + p.head.length + p.raw, 0),
    rows: col.rows,
    nulls: col.rows - col.count,
    bounds: col.bounds(),
  };
  return { pieces, bytes, chunk: chunkOf(summary, name, offset), summary };
}
