// Row groups encoded where a Parquet export's piece is staged (ADR 0056): the lane that fetched the
// pages encodes their staged values as row groups under the kinds its piece holds (the template's
// types, else its values' headers), and stores them after the values, in the same object. The
// render writes a piece's groups as they are when the file's kinds are those, and only stitches:
// offsets rebased, the footer written. A piece whose kinds are not the file's (a type that widens
// later: a decimal on page 13, a column null until late) is encoded again from its values, never
// written under the wrong type; so is one whose groups would cross a part's row limit.
//
// A piece with groups: 0x47 ('G'; a piece of values alone begins with staged.ts' 0x56), the
// lengths of the groups' description and of their bytes (uint32 LE each), the description (JSON:
// the rows, the kinds the values hold, each group's rows and chunks), each group's chunk bytes back
// to back, then the values. The groups come first so that the render, which needs only them when
// it takes them, reads only the piece's first bytes (PREFIX_BYTES).
import type { Column } from '../columns.js';
import { type ChunkSummary, type EncodedGroup, type EncodedGroups, encodeChunk, EncodeWork } from './encode.js';
import { GROUP_BYTES, GROUP_ROWS, GroupFiller } from './parts.js';
import { stagedKeys, ValuesReader } from './staged.js';
import { type Kind, kindOf, templateKind, uniqueKeys } from './types.js';

const GROUPS_MAGIC = 0x47;

/**
 * A piece's groups are taken as they are only when they hold this many rows at least: a slow
 * source's lane stores small pieces (a second's pages), whose row groups would make a file of many
 * small groups (a dictionary each, a longer footer); their rows are gathered by the render into
 * groups of GROUP_ROWS instead, which costs what it did before, little beside such a fetch.
 */
export const taken = { minRows: 8192 }; // (a test lowers it, to take the groups of small pieces)

interface GroupsJson {
  kinds: Kind[];
  rows: number;
  /** The values' kinds per staged column (their headers' bits, OR-ed): what the type pass takes. */
  bits: number[];
  groups: Array<{ rows: number; at: number; length: number; chunks: Array<{ at: number; s: unknown[] }> }>;
}

/** A bound as JSON keeps it exactly: a bigint as its digits, -0 as itself. */
const bound = (v: number | bigint): string => (typeof v === 'bigint' ? `b${v}` : Object.is(v, -0) ? 'n-0' : `n${v}`);
const unbound = (s: string): number | bigint => (s[0] === 'b' ? BigInt(s.slice(1)) : Number(s.slice(1)));

const summaryJson = (s: ChunkSummary): unknown[] => [s.physical, s.dictionaryBytes, s.bytes, s.uncompressed, s.rows, s.nulls, s.bounds ? bound(s.bounds.min) : null, s.bounds ? bound(s.bounds.max) : null];
function summaryOf(j: unknown[]): ChunkSummary {
  const [physical, dictionaryBytes, bytes, uncompressed, rows, nulls, min, max] = j as [ChunkSummary['physical'], number, number, number, number, number, string | null, string | null];
  return { physical, dictionaryBytes, bytes, uncompressed, rows, nulls, bounds: min === null || max === null ? null : { min: unbound(min), max: unbound(max) } };
}

/**
 * A filler and an encoder's working memory per column list and kinds, kept for the lane's next
 * piece (a piece's buffers are a few MB; new ones per piece were garbage to collect): at most 2
 * (the lanes of one export share one), none for a piece past KEEP_BYTES (a rare huge page).
 */
const kept = new Map<string, { fill: GroupFiller; work: EncodeWork }>();
const KEEP_BYTES = 8 << 20;

function filler(columns: Column[], kinds: Kind[], bytes: number): { fill: GroupFiller; work: EncodeWork } {
  if (bytes > KEEP_BYTES) return { fill: new GroupFiller(columns, kinds), work: new EncodeWork() };
  const id = JSON.stringify([columns.map((c) => [c.key, c.type ?? null]), kinds]);
  let k = kept.get(id);
  if (!k) {
    if (kept.size >= 2) kept.delete(kept.keys().next().value!);
    k = { fill: new GroupFiller(columns, kinds), work: new EncodeWork() };
    kept.set(id, k);
  }
  k.fill.reset();
  k.fill.rowNo = 0;
  return k;
}

/** The kinds a piece's values hold, per column: the template's type, else what its headers' bits say. */
function pieceKinds(columns: Column[], bits: Uint8Array): Kind[] {
  const keys = uniqueKeys(columns);
  return columns.map((c) => templateKind(c) ?? kindOf(bits[keys.indexOf(c.key)]!));
}

/**
 * A piece's staged values (its pages' fragments, in order) with their row groups, as the parts of
 * the piece to store (never joined here: the fragments are read where they are, and the store
 * writes the parts back to back); null when the groups cannot be made (a value its template type cannot hold: the render then
 * fails the task on it, naming its row, as before), and the values are stored alone.
 */
export function encodeGroups(fragments: Buffer[], columns: Column[]): Buffer[] | null {
  const bytes = fragments.reduce((n, f) => n + f.length, 0);
  if (bytes === 0 || columns.length === 0) return null;
  const reader = new ValuesReader(stagedKeys(columns).length);
  let rows = 0;
  const bits = new Array<number>(reader.columns).fill(0);
  for (const f of fragments) {
    rows += reader.headers(f);
    reader.bits.forEach((b, c) => (bits[c]! |= b));
  }
  const kinds = pieceKinds(columns, Uint8Array.from(bits));
  const { fill, work } = filler(columns, kinds, bytes);
  const names = fill.columns.map((c) => c.key);
  const size = bytes / Math.max(1, rows);
  // Each group's pages as the encoder made them: joined once, with the piece.
  const groups: Array<Omit<EncodedGroup, 'bytes'> & { pieces: Uint8Array[]; length: number }> = [];
  const encode = () => {
    const chunks: EncodedGroup['chunks'] = [];
    const pieces: Uint8Array[] = [];
    let at = 0;
    fill.group.forEach((col, i) => {
      const enc = encodeChunk(col, names[i]!, at, work);
      chunks.push({ at, summary: enc.summary });
      pieces.push(...enc.pieces);
      at += enc.bytes;
    });
    groups.push({ rows: fill.rows, pieces, length: at, chunks });
    fill.reset();
  };
  try {
    // Fragment by fragment (each a page's, whole in itself): the piece's values are not joined first.
    let inGroup = 0;
    for (const f of fragments) {
      for (reader.open(f); reader.next(); ) {
        fill.addScanned(reader, f);
        inGroup += size;
        if (fill.rows >= GROUP_ROWS || inGroup >= GROUP_BYTES) {
          encode();
          inGroup = 0;
        }
      }
    }
    if (fill.rows > 0) encode();
  } catch {
    // A misfit of a template type (render_failed): the render meets it again and says where.
    fill.reset();
    return null;
  }
  const json: GroupsJson = { kinds: fill.kinds, rows, bits, groups: [] };
  let at = 0;
  for (const g of groups) {
    json.groups.push({ rows: g.rows, at, length: g.length, chunks: g.chunks.map((c) => ({ at: c.at, s: summaryJson(c.summary) })) });
    at += g.length;
  }
  const text = Buffer.from(JSON.stringify(json), 'utf8');
  const head = Buffer.alloc(9);
  head[0] = GROUPS_MAGIC;
  head.writeUInt32LE(text.length, 1);
  head.writeUInt32LE(at, 5);
  // The piece's parts, in order; the store writes them back to back (Storage.putBuffer), unjoined.
  return [head, text, ...groups.flatMap((g) => g.pieces.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))), ...fragments];
}

/** How much of a piece the render reads first: a 4 MiB piece's groups and their description fit. */
export const PREFIX_BYTES = 2 << 20;

/** A piece's groups as the render reads them from its first bytes, with the kinds its values hold. */
export interface PieceGroups {
  groups: EncodedGroups;
  bits: Uint8Array;
}

/**
 * What a staged piece's first bytes (or all of them) hold: its groups (`PieceGroups`), 'values'
 * (a piece of values alone: staged by a preview, from a page the lane parsed, or whose groups could
 * not be made), 'more' (its groups run past these bytes: read the whole piece), or null (neither:
 * the render's storage_failed).
 */
export function readGroups(bytes: Buffer): PieceGroups | 'values' | 'more' | null {
  if (bytes.length === 0 || bytes[0] !== GROUPS_MAGIC) return 'values';
  if (bytes.length < 9) return null;
  const jsonLength = bytes.readUInt32LE(1);
  const groupsLength = bytes.readUInt32LE(5);
  const groupsAt = 9 + jsonLength;
  if (groupsAt + groupsLength > bytes.length) return 'more';
  let json: GroupsJson;
  try {
    json = JSON.parse(bytes.toString('utf8', 9, groupsAt)) as GroupsJson;
  } catch {
    return null;
  }
  // Every group with a chunk per column, the groups back to back, their rows the piece's.
  let end = 0;
  let rows = 0;
  for (const g of json.groups) {
    if (g.at !== end || g.chunks.length !== json.kinds.length) return null;
    end += g.length;
    rows += g.rows;
  }
  if (end !== groupsLength || rows !== json.rows) return null;
  const groups = json.groups.map((g) => ({ rows: g.rows, bytes: bytes.subarray(groupsAt + g.at, groupsAt + g.at + g.length), chunks: g.chunks.map((c) => ({ at: c.at, summary: summaryOf(c.s) })) }));
  return { groups: { kinds: json.kinds, rows: json.rows, groups }, bits: Uint8Array.from(json.bits) };
}

/** A whole staged piece's values (after its groups, if it has them); null when it is neither kind of piece. */
export function valuesOf(bytes: Buffer): Buffer | null {
  if (bytes.length === 0 || bytes[0] !== GROUPS_MAGIC) return bytes;
  if (bytes.length < 9) return null;
  const at = 9 + bytes.readUInt32LE(1) + bytes.readUInt32LE(5);
  return at <= bytes.length ? bytes.subarray(at) : null;
}
