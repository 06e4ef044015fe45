// A download resumed with Range requests arrives in pieces, one record each (docs/downloads.md).
// The piece that, with the same downloader's earlier pieces of the same file, makes up every byte
// of it is recorded complete: one complete record per file a downloader came to hold, however many
// answers it took. Bounded work: only the task's RECENT newest records are read, by its index.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { downloads } from '../../db/schema.js';
import { newestFirst } from '../cursor.js';

/** How many of the task's newest records a piece is matched against. */
const RECENT = 200;

/** The bytes one answer handed out: from `start`, `bytes` of them. */
export interface Piece {
  start: number;
  bytes: number;
}

/** A new record's piece, and what says whose it is and of which file. */
interface PieceOf {
  taskId: string;
  fileName: string;
  /** by_kind, by_id, session_id as recorded: the project key, the operator session, or the signed link. */
  byKind: string;
  byId: string | null;
  sessionId: string | null;
  range: string | null;
  bytes: number;
  /** The file's size. */
  size: number;
  /** When the task's files were made (its finished_at): a retry's new files are not the old ones. */
  madeAt: Date | null;
}

const CONTENT_RANGE = /^bytes (\d+)-\d+\/(\d+)$/;

/**
 * Where an answer's bytes lay in the file: a range's first byte on (what was sent of it, which may
 * be less than asked), or the file's start for a whole answer cut short. Null: a range of a file of
 * another size, so not this file.
 */
export function pieceOf(range: string | null, bytes: number, size: number): Piece | null {
  if (range === null) return { start: 0, bytes };
  const m = CONTENT_RANGE.exec(range);
  if (!m || Number(m[2]) !== size) return null;
  return { start: Number(m[1]), bytes };
}

/** Whether the pieces together hold every byte of a file of `size` bytes. */
export function covers(pieces: Piece[], size: number): boolean {
  let upto = 0;
  for (const p of [...pieces].sort((x, y) => x.start - y.start)) {
    if (p.start > upto) return false;
    upto = Math.max(upto, p.start + p.bytes);
  }
  return upto >= size;
}

/** The piece completes the file: with the earlier ones it covers the file, and they alone did not. */
export function completes(earlier: Piece[], piece: Piece, size: number): boolean {
  return covers([...earlier, piece], size) && !covers(earlier, size);
}

/** The same downloader's earlier pieces of the same file, among the task's RECENT newest records. */
async function earlierPieces(db: Db, p: PieceOf): Promise<Piece[]> {
  const rows = await db
    .select({ fileName: downloads.fileName, byKind: downloads.byKind, byId: downloads.byId, sessionId: downloads.sessionId, range: downloads.range, bytes: downloads.bytes, startedAt: downloads.startedAt })
    .from(downloads)
    .where(eq(downloads.taskId, p.taskId))
    .orderBy(...newestFirst(downloads.at, downloads.id))
    .limit(RECENT);
  const same = rows.filter((r) => r.fileName === p.fileName && r.byKind === p.byKind && r.byId === p.byId && r.sessionId === p.sessionId && (p.madeAt === null || r.startedAt >= p.madeAt));
  return same.map((r) => pieceOf(r.range, r.bytes, p.size)).filter((x): x is Piece => x !== null);
}

/**
 * Whether this piece completes the file for its downloader. Called in the transaction that then
 * writes the record, under a lock per downloader and file, so two pieces ending together (a client
 * fetching ranges in parallel) see each other: the later one is the complete one.
 */
export async function completesResumed(tx: Db, p: PieceOf): Promise<boolean> {
  const piece = pieceOf(p.range, p.bytes, p.size);
  if (piece === null || p.bytes === 0) return false;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${['downloads', p.taskId, p.fileName, p.byKind, p.byId ?? '', p.sessionId ?? ''].join('\n')}))`);
  return completes(await earlierPieces(tx, p), piece, p.size);
}
