// fetchPages, a heartbeating activity: it resumes at the checkpoint an earlier attempt heartbeated,
// fetches page after page, stores them in pieces keyed by their page range and heartbeats each
// piece's end (docs/adr/0011-staged-pieces.md), so no row travels through history. What is
// bookkeeping (the chunk's pages, pieces, checkpoint and endings) is domain/staging/lane.ts's.
import type { Config } from '../platform/config.js';
import { Context } from '@temporalio/activity';
import type { FetchPagesInput, FetchPagesOutput } from '../model/activities.js';
import { DomainError } from '../domain/errors.js';
import { csvStyle } from '../domain/formats/csv/encode.js';
import type { TaskRow } from '../db/schema.js';
import type { SourceLimits } from '../domain/source/limiter.js';
import { type LaneAnswer, LaneRequests } from '../domain/source/lane-requests.js';
import type { PoliteSource } from '../domain/source/polite.js';
import { keys } from '../domain/staging/keys.js';
import { LaneChunk } from '../domain/staging/lane.js';
import { maskJob } from '../domain/staging/masks.js';
import { readMeta, type SourceMeta } from '../domain/staging/meta.js';
import { maskKeyId } from '../domain/projects/mask-key.js';
import { plansHash } from '../model/mask.js';
import type { PageEncoder } from '../domain/staging/page-encoder.js';
import { pieceLimits, stagedExt } from '../domain/staging/pieces.js';
import { sheetLabel, taskSheets } from '../domain/staging/sheets.js';
import { taskCancelled } from '../domain/tasks/queries.js';
import { setLaneProgress } from '../domain/tasks/status.js';
import { type ActivityDeps, heartbeat } from './deps.js';

// How long a paused lane lets the page in flight finish before it aborts the request: with the
// heartbeat that carries the cancel (at most a second), a pause reaches the source within ~1.5 s.
const PAUSE_GRACE_MS = 500;

export interface FetchPagesDeps extends Pick<ActivityDeps, 'db' | 'storage'> {
  source: PoliteSource;
  encoder: PageEncoder;
  /** The task with its source limits, read afresh at every attempt (the allow-list checked). */
  load(taskId: string): Promise<{ task: TaskRow; limits: SourceLimits }>;
  /** The project's hash-mask key (domain/projects/mask-key.ts), read only when a sheet's plan hashes. */
  maskKey(projectId: string): Promise<string>;
  /** PARQUET_STAGING: what a Parquet export's lanes stage. */
  parquetStaging: Config['PARQUET_STAGING'];
}

/**
 * Fetches pages [fromPage, toPage) and stores them in pieces. A page whose total or row count
 * differs from the probe fails with source_changed (the workflow decides whether to start over).
 */
export function createFetchPages(deps: FetchPagesDeps): (input: FetchPagesInput) => Promise<FetchPagesOutput> {
  return async function fetchPages(input) {
    const ctx = Context.current();
    const lane = await openLane(deps, input, ctx);
    const { chunk, requests } = lane;
    // Heartbeats keep flowing while the lane waits for its slot or a slow page; Temporal throttles them.
    const beat = setInterval(() => heartbeat(ctx, chunk.checkpoint()), 1000);
    try {
      await requests.open();
      // Page n + 1 is asked for as soon as page n's answer is in, and page n encoded meanwhile:
      // still one request in flight per lane, but the source is never idle while the lane works.
      for (let answer = lane.ask(chunk.next); answer; ) {
        const page = chunk.next;
        const got = await answer.catch(lane.labelled);
        answer = lane.ask(page + 1);
        chunk.add(await lane.stage(got, page).catch(lane.labelled));
        if (chunk.pieceDue()) {
          await lane.store();
          await lane.report(false);
        }
      }
      await lane.store();
      if (ctx.cancellationSignal.aborted) throw cancelled(ctx, undefined);
      await lane.report(true);
      return chunk.done();
    } catch (err) {
      requests.stopAhead();
      return await afterError(lane, ctx, err);
    } finally {
      clearInterval(beat);
      await requests.close();
    }
  };
}

/**
 * The project's hash key if it is the one the probe pinned (meta.maskKeyId): one export's hashes
 * all come from one key. A key rotated since fails the lane with source_changed, so the export
 * starts over once, with the new key, from a fresh probe (workflows/fetch-all.ts).
 */
function pinnedKey(meta: SourceMeta, key: string): string {
  if (meta.maskKeyId === maskKeyId(key)) return key;
  throw new DomainError('source_changed', "the project's hash key was rotated during the export; its hashes would mix two keys");
}

type Lane = Awaited<ReturnType<typeof openLane>>;

/** One attempt's wiring: its chunk of the lane, its requests, and where its pieces and progress go. */
async function openLane({ db, storage, source, encoder, load, maskKey, parquetStaging }: FetchPagesDeps, input: FetchPagesInput, ctx: Context) {
  const { task, limits } = await load(input.taskId);
  const sheet = input.sheet ?? 0;
  const sheets = taskSheets(task);
  const meta = await readMeta(storage, input.taskId, sheet);
  const ext = stagedExt(task.type, parquetStaging);
  const mask = maskJob(task.type, meta, plansHash(meta.masks) ? pinnedKey(meta, await maskKey(task.projectId)) : undefined, task.options.time_zone);
  const style = csvStyle(task.options);
  const chunk = new LaneChunk(input, meta, ctx.info.heartbeatDetails, pieceLimits(ext));
  // Parquet's pages arrive as bytes too: staged as the columns' values by the byte transcoder
  // (docs/adr/0056-parquet-export-pipeline.md); only Excel's are parsed (its sheets read whole rows).
  const target = { sourceUrl: sheets[sheet]!.sourceUrl, projectId: task.projectId, limits, pageSize: meta.pageSize, bytes: ext !== 'ndjson' || task.type === 'parquet' };
  const requests = new LaneRequests(source, target, ctx.cancellationSignal, async () => ((await taskCancelled(db, input.taskId)) ? 0 : PAUSE_GRACE_MS));
  return {
    chunk,
    requests,
    ask: (page: number) => (chunk.wants(page) ? requests.ask(page) : undefined),
    stage: (got: LaneAnswer, page: number) => encoder.stage(got, page, meta, ext, style, mask),
    labelled: (err: unknown): never => {
      throw inSheet(err, sheetLabel(sheets, sheet));
    },
    /**
     * The pages in waiting as one piece, then its end heartbeated: only a stored boundary is. A
     * Parquet export's piece holds its row groups too, encoded here, while the other lanes fetch,
     * so the render only stitches them (ADR 0056).
     */
    async store() {
      // A Parquet piece's row groups are encoded first (on the encoder's thread, the lane waiting).
      const parts = ext === 'pqv' ? chunk.pendingParts() : undefined;
      const body = parts && (await encoder.piece(parts, meta.columns));
      const piece = chunk.piece(body ? (now) => (now.length === parts!.length ? body : now) : undefined);
      if (!piece) return;
      await storage.putBuffer(keys.piece(input.taskId, piece.from, piece.to, ext, sheet), piece.body);
      chunk.stored(piece);
      heartbeat(ctx, chunk.checkpoint());
    },
    async report(force: boolean) {
      const progress = chunk.progress(force);
      if (progress) await setLaneProgress(db, input.taskId, input.lane, progress);
    },
  };
}

async function afterError(lane: Lane, ctx: Context, err: unknown): Promise<FetchPagesOutput> {
  // Cancelled (the task, a pause, another lane failed): the pages that arrived are stored first,
  // so a resumed run asks none of them again; then the CancelledFailure, not the aborted request,
  // is reported. Best effort: a store failing now only means a resumed run asks those pages again;
  // the answer stays the cancellation (a pause must not turn into a failed task).
  if (ctx.cancellationSignal.aborted) {
    await lane
      .store()
      .then(() => lane.report(true))
      .catch(() => {});
    throw cancelled(ctx, err);
  }
  if (!(err instanceof DomainError) || !err.retryable) throw err;
  // A transient source error: keep what was fetched, so only the failed page is asked again.
  await lane.store();
  const partial = lane.chunk.afterTransient(err, ctx.info.attempt);
  await lane.report(true);
  return partial;
}

/** The activity's CancelledFailure (what Temporal expects of a cancelled activity), else the error. */
function cancelled(ctx: Context, err: unknown): unknown {
  return ctx.cancellationSignal.reason instanceof Error ? ctx.cancellationSignal.reason : (err ?? new Error('cancelled'));
}

/** A failure about one sheet of several says which: the same code, the sheet named first. */
export function inSheet(err: unknown, label: string): unknown {
  return err instanceof DomainError ? err.labelled(label) : err;
}
