// The bookkeeping of one fetchPages call (activities/fetch-pages.ts): pages [fromPage, toPage) of
// a lane, fetched in order, collected into pieces (pieces.ts) and stored. No I/O here: the activity
// asks the source, stores each piece this class bounds, and heartbeats the checkpoint it gives.
import type { FetchPagesInput, FetchPagesOutput } from '../../model/activities.js';
import { rowsInPages } from '../../model/plan.js';
import type { LaneProgress } from '../../model/task.js';
import { DomainError } from '../errors.js';
import { PIECE_MAX_BYTES, PIECE_MAX_MS } from './pieces.js';

/** What a fetchPages attempt heartbeats: pages before nextPage are in stored pieces. */
export interface LaneCheckpoint {
  nextPage: number;
}

/** Pages [from, to) fetched and waiting to be stored as one piece. */
export interface PendingPiece {
  from: number;
  /** Exclusive. */
  to: number;
  /** The piece's bytes, or its parts to be written back to back. */
  body: Buffer | readonly Buffer[];
}

/** How often a lane writes its progress to the task row at most (besides its last word). */
export const PROGRESS_EVERY_MS = 500;

type Range = Pick<FetchPagesInput, 'laneFromPage' | 'fromPage' | 'toPage' | 'failedAttempts' | 'maxAttempts'>;

export class LaneChunk {
  /** The first page this attempt fetches: the checkpoint of an earlier attempt, else fromPage. */
  readonly attemptFrom: number;
  /** Pages before `storedTo` are in stored pieces; [storedTo, next) wait in `parts`. */
  private storedTo: number;
  private nextPage: number;
  private parts: Buffer[] = [];
  private bytes = 0;
  private pendingSince = 0;
  private progressAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly range: Range,
    private readonly probed: { total: number; pageSize: number },
    checkpoint: unknown,
    /** When a piece is due (pieces.ts' pieceLimits). */
    private readonly limits: { ms: number; bytes: number } = { ms: PIECE_MAX_MS, bytes: PIECE_MAX_BYTES },
  ) {
    this.attemptFrom = Math.max(range.fromPage, resumeAt(checkpoint) ?? range.fromPage);
    this.storedTo = this.nextPage = this.attemptFrom;
  }

  /** The page to fetch next. */
  get next(): number {
    return this.nextPage;
  }

  /** Whether `page` is this chunk's to fetch. */
  wants(page: number): boolean {
    return page < this.range.toPage;
  }

  /** Page `next`, encoded: it joins the piece in waiting. */
  add(fragment: Buffer): void {
    if (this.parts.length === 0) this.pendingSince = Date.now();
    this.parts.push(fragment);
    this.bytes += fragment.length;
    this.nextPage += 1;
  }

  /** The piece in waiting is big or old enough to store (what a crash redoes stays bounded). */
  pieceDue(): boolean {
    return this.parts.length > 0 && (this.bytes >= this.limits.bytes || Date.now() - this.pendingSince >= this.limits.ms);
  }

  /** The fragments of the pages in waiting (a copy of the list), or undefined when none wait. */
  pendingParts(): Buffer[] | undefined {
    return this.nextPage === this.storedTo ? undefined : [...this.parts];
  }

  /**
   * The pages fetched and not yet stored, or undefined; they stay here until `stored` says so.
   * `join` makes the piece's body of its pages' fragments (a Parquet piece's holds its row groups
   * too); by default they are joined as they are.
   */
  piece(join?: (parts: Buffer[]) => Buffer | readonly Buffer[]): PendingPiece | undefined {
    if (this.nextPage === this.storedTo) return undefined;
    const body = join ? join(this.parts) : this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.bytes);
    return { from: this.storedTo, to: this.nextPage, body };
  }

  /** `piece` is in the store: the checkpoint moves to its end. */
  stored(piece: PendingPiece): void {
    if (piece.from !== this.storedTo || piece.to !== this.nextPage) throw new Error(`piece ${piece.from}-${piece.to} is not the one waiting (${this.storedTo}-${this.nextPage})`);
    this.storedTo = piece.to;
    this.parts = [];
    this.bytes = 0;
  }

  /** Only a stored boundary: a retried attempt starts right after a whole piece. */
  checkpoint(): LaneCheckpoint {
    return { nextPage: this.storedTo };
  }

  /** The lane's stored pages and rows for the task row, at most every PROGRESS_EVERY_MS unless forced. */
  progress(force: boolean): LaneProgress[string] | undefined {
    const now = Date.now();
    if (!force && now - this.progressAt < PROGRESS_EVERY_MS) return undefined;
    this.progressAt = now;
    const { laneFromPage } = this.range;
    return { pages: this.storedTo - laneFromPage, rows: this.rows(laneFromPage, this.storedTo) };
  }

  /** The whole chunk is stored. */
  done(): FetchPagesOutput {
    const { fromPage, toPage } = this.range;
    return { pages: toPage - fromPage, rows: this.rows(fromPage, toPage) };
  }

  /**
   * After a transient error (and the pages before it stored): this attempt's stored pages and the
   * page to call again from, so every page gets the full retry budget. An attempt that stored
   * nothing rethrows, retryable while the page's budget lasts, non-retryable once it is spent.
   */
  afterTransient(err: DomainError, attempt: number): FetchPagesOutput {
    if (this.storedTo === this.attemptFrom) {
      const spent = attempt + (this.range.failedAttempts ?? 0);
      if (spent >= (this.range.maxAttempts ?? Infinity)) throw new DomainError(err.code, err.message);
      throw err;
    }
    const { fromPage } = this.range;
    return { pages: this.storedTo - fromPage, rows: this.rows(fromPage, this.storedTo), nextPage: this.storedTo, retryAfterMs: err.nextRetryDelayMs };
  }

  private rows(from: number, to: number): number {
    return rowsInPages(from, to, this.probed.total, this.probed.pageSize);
  }
}

/** The page an earlier attempt's heartbeat names, if it names one. */
function resumeAt(details: unknown): number | undefined {
  const nextPage = (details as Partial<LaneCheckpoint> | null | undefined)?.nextPage;
  return typeof nextPage === 'number' && Number.isInteger(nextPage) ? nextPage : undefined;
}
