// Staged pieces (docs/adr/0011-staged-pieces.md): a fetch activity collects the pages it fetches
// and stores them as one object per piece, `staging/<task>/pages/<from>-<to>.<ext>` holding pages
// [from, to), at most every PIECE_MAX_MS or PIECE_MAX_BYTES. It heartbeats only committed
// boundaries, so a retried attempt resumes at the end of a stored piece and nothing is appended
// to or half-written. The merge is a chain of pieces from page 0 to the last page.
import type { Storage } from '../../platform/storage/index.js';
import { DomainError } from '../errors.js';
import type { ExportType } from '../../model/task.js';
import type { Column } from '../formats/columns.js';
import { type CsvStyle, encodeCsvRows } from '../formats/csv/encode.js';
import { encodeJsonLines } from '../formats/jsonl.js';
import { encodeValues, stagedKeys } from '../formats/parquet/staged.js';
import { keys } from './keys.js';

/** How long a fetched page may wait in memory before it is stored: bounds what a crash redoes. */
export const PIECE_MAX_MS = 250;
/** Bounds the memory a lane holds besides the page in flight. */
export const PIECE_MAX_BYTES = 1024 * 1024;

/**
 * A Parquet export's pieces are bigger, as each is also its row groups (ADR 0056): a row group of
 * a second's or 4 MiB's rows (some 45,000 of the benchmark's orders) rather than a quarter
 * second's or 1 MiB's (11,000: each chunk's dictionary repeated four times as often, the file
 * 17.7 MB instead of 15.5). A crash redoes at most a second of a lane's fetching; the five lanes
 * hold at most 20 MiB besides their pages in flight.
 */
export const PARQUET_PIECE_MAX_MS = 1000;
export const PARQUET_PIECE_MAX_BYTES = 4 * 1024 * 1024;

/** When a lane's piece in waiting is due, by what it is staged as. */
export const pieceLimits = (ext: StagedExt): { ms: number; bytes: number } => (ext === 'pqv' ? { ms: PARQUET_PIECE_MAX_MS, bytes: PARQUET_PIECE_MAX_BYTES } : { ms: PIECE_MAX_MS, bytes: PIECE_MAX_BYTES });

export interface Piece {
  key: string;
  from: number;
  /** Exclusive. */
  to: number;
}

// `<from>-<to>.ext`; a plain `<page>.ext` is one page, as exports staged before pieces stored them
// (an export in flight across an upgrade resumes with pieces after its single pages).
const PIECE_NAME = /\/(\d{8})(?:-(\d{8}))?\.\w+$/;

export function parsePiece(key: string): Piece | null {
  const m = PIECE_NAME.exec(key);
  if (!m) return null;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from + 1 : Number(m[2]);
  return to > from ? { key, from, to } : null;
}

/**
 * Pieces that cover pages [0, pages) exactly once, in order, or null. Normally the pieces meet
 * end to start and there is one chain; a stalled attempt that kept running after its retry began
 * can leave pieces that overlap the retry's, with the same pages in them: any exact cover is right.
 */
export function pieceChain(pieces: Piece[], pages: number): Piece[] | null {
  if (pages === 0) return [];
  const startingAt = new Map<number, Piece[]>();
  for (const p of pieces) if (p.to <= pages) startingAt.set(p.from, [...(startingAt.get(p.from) ?? []), p]);
  // Backwards from the end: next.get(s) is a piece starting at s from whose end the last page is reachable.
  const next = new Map<number, Piece>();
  for (const start of [...startingAt.keys()].sort((a, b) => b - a)) {
    const fit = startingAt
      .get(start)!
      .sort((a, b) => b.to - a.to)
      .find((p) => p.to === pages || next.has(p.to));
    if (fit) next.set(start, fit);
  }
  const chain: Piece[] = [];
  for (let at = 0; at < pages; ) {
    const p = next.get(at);
    if (!p) return null;
    chain.push(p);
    at = p.to;
  }
  return chain;
}

/** The stored pieces of a task (work files of unfinished writes excluded). */
export async function listPieces(storage: Storage, taskId: string, sheet = 0): Promise<Piece[]> {
  return (await storage.list(keys.pages(taskId, sheet))).map(parsePiece).filter((p): p is Piece => p !== null);
}

/** The staged pieces in page order, covering every page once; storage_failed when pages are missing. */
export async function orderedPieces(storage: Storage, taskId: string, pages: number, sheet = 0): Promise<Piece[]> {
  const pieces = await listPieces(storage, taskId, sheet);
  const chain = pieceChain(pieces, pages);
  if (!chain) {
    const present = new Set(pieces.flatMap((p) => Array.from({ length: Math.min(p.to, pages) - p.from }, (_, i) => p.from + i))).size;
    throw new DomainError('storage_failed', `staged data is incomplete: ${present} of ${pages} pages present`);
  }
  return chain;
}

/**
 * Pieces read at once ahead of the one being written: a render's reads were most of its time (45
 * pieces of 1 MiB, one at a time: 42–90 ms of waiting in a 500,000-row CSV render; the writes and
 * hashing 20 ms). At most this many, and no more than fit in READ_AHEAD_BYTES at the size of the
 * largest piece read so far (at least one).
 */
export const READ_AHEAD = 4;
/**
 * A piece is PIECE_MAX_BYTES plus the page that crossed it, so a source of big pages makes big
 * pieces: from 4 MiB pages on, one is read ahead. Before any piece is seen, READ_AHEAD are asked
 * for, each at most PIECE_MAX_BYTES + SOURCE_MAX_PAGE_BYTES: the order of the lanes' own pages in flight.
 */
export const READ_AHEAD_BYTES = 8 * PIECE_MAX_BYTES;

/**
 * Each piece of the chain with its bytes, the next ones read while the caller works on this one;
 * the abort signal is checked before each piece is handed over (the caller's catch cleans up).
 */
export async function* readAhead(storage: Storage, chain: Piece[], signal: AbortSignal): AsyncGenerator<{ piece: Piece; bytes: Buffer }> {
  const ahead: Promise<Buffer>[] = [];
  let next = 0;
  let largest = 1;
  const fill = () => {
    const depth = Math.max(1, Math.min(READ_AHEAD, Math.floor(READ_AHEAD_BYTES / largest)));
    while (ahead.length < depth && next < chain.length) {
      const read = storage.getBuffer(chain[next++]!.key);
      read.catch(() => {}); // awaited in its turn, or abandoned when an earlier one fails
      ahead.push(read);
    }
  };
  fill();
  for (const piece of chain) {
    const bytes = await ahead.shift()!;
    largest = Math.max(largest, bytes.length);
    fill();
    if (signal.aborted) throw signal.reason;
    yield { piece, bytes };
  }
}

/**
 * As readAhead, but of each piece for which `prefix` names a length only its first bytes (one range
 * read; `whole`: they are all of it): a Parquet piece's row groups come first, and the render reads
 * the rest only when it needs the values (render-parquet.ts).
 */
export async function* readAheadPrefixes(storage: Storage, chain: Piece[], signal: AbortSignal, prefix: (piece: Piece) => number | null): AsyncGenerator<{ piece: Piece; bytes: Buffer; whole: boolean }> {
  const read = async (piece: Piece) => {
    const n = prefix(piece);
    if (n === null) return { bytes: await storage.getBuffer(piece.key), whole: true };
    const chunks: Buffer[] = [];
    for await (const c of await storage.getStream(piece.key, { start: 0, end: n - 1 })) chunks.push(c as Buffer);
    const bytes = Buffer.concat(chunks);
    return { bytes, whole: bytes.length < n };
  };
  let reading = chain[0] && read(chain[0]);
  for (const [i, piece] of chain.entries()) {
    const got = await reading!;
    reading = chain[i + 1] && read(chain[i + 1]!);
    reading?.catch(() => {}); // awaited on the next turn, or abandoned when this one fails
    if (signal.aborted) throw signal.reason;
    yield { piece, ...got };
  }
}

export type StagedExt = 'csv' | 'jsonl' | 'ndjson' | 'pqv';

/**
 * CSV and JSON Lines exports stage finished fragments of their file (rendering concatenates them);
 * Excel exports stage the source's rows as JSON lines; Parquet exports the columns' values, located,
 * classified and valued (`.pqv`, domain/formats/parquet/staged.ts, ADR 0056; an export staged
 * before that holds the columns' JSON lines, `.ndjson`, which the render still reads).
 */
export const stagedExt = (type: ExportType, parquet: 'values' | 'lines' = 'values'): StagedExt =>
  type === 'csv' ? 'csv' : type === 'jsonl' ? 'jsonl' : type === 'parquet' && parquet === 'values' ? 'pqv' : 'ndjson';

/** `style`: a CSV task's dialect and time_zone (csvStyle of its options). */
export function encodeStaged(ext: StagedExt, rows: unknown[], columns: Column[], style?: CsvStyle): Buffer {
  if (ext === 'csv') return encodeCsvRows(rows, columns, style);
  if (ext === 'jsonl') return encodeJsonLines(rows, columns);
  if (ext === 'pqv') return encodeValues(rows, stagedKeys(columns));
  return Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''), 'utf8');
}

/** Pages [0, pages) no stored piece covers, as ranges: what a resumed export still has to fetch. */
export function gaps(pieces: Piece[], pages: number): Array<{ from: number; to: number }> {
  const out: Array<{ from: number; to: number }> = [];
  let at = 0;
  for (const p of [...pieces].sort((a, b) => a.from - b.from || b.to - a.to)) {
    if (p.from > at) out.push({ from: at, to: Math.min(p.from, pages) });
    at = Math.max(at, p.to);
    if (at >= pages) break;
  }
  if (at < pages) out.push({ from: at, to: pages });
  return out.filter((g) => g.to > g.from);
}
