// probe + fetch: pages go to the store in pieces keyed by their page range (activities/pieces.ts),
// so a retried or resumed activity starts after a whole piece, and no row travels through history.
import { Context } from '@temporalio/activity';
import { ApplicationFailure, msOptionalToNumber } from '@temporalio/common';
import { eq } from 'drizzle-orm';
import { projects, type TaskRow } from '../db/schema.js';
import { requireTask, setLaneProgress, updateRunning } from '../db/tasks.js';
import { expectedRows, pageCount, rowsInPages } from '../lib/plan.js';
import { LocalSourceLimiter, PgSourceLimiter, type Permit, type SourceLimiter, type SourceLimits, sourceLimits } from '../lib/source-limiter.js';
import { rowColumns, templateColumns } from './columns.js';
import { type ActivityDeps, keys, type SourceMeta } from './deps.js';
import { permanent, type TaskErrorCode } from './errors.js';
import { encodeCsvRows } from './csv-encode.js';
import { PieceBuffer } from './pieces.js';
import { checkExcelLayout } from './render-xlsx.js';
import { getPage, type SourceClientOptions } from './source.js';

export interface FetchPagesInput {
  taskId: string;
  lane: number;
  laneFromPage: number;
  fromPage: number;
  /** Exclusive. */
  toPage: number;
  /** Failed attempts already spent on fromPage by an earlier call, and the budget per page. */
  failedAttempts?: number;
  maxAttempts?: number;
}

export interface FetchPagesOutput {
  pages: number;
  rows: number;
  /**
   * Set when a transient error came after this attempt had stored pages: the workflow waits
   * retryAfterMs and calls again from nextPage, so every page gets the full retry budget rather
   * than a 100-page chunk sharing five attempts.
   */
  nextPage?: number;
  retryAfterMs?: number;
}

const pageExt = (task: TaskRow) => (task.type === 'csv' ? 'csv' : 'ndjson');
const PROGRESS_EVERY_MS = 500;

export function createFetchActivities({ db, storage, config }: ActivityDeps) {
  const sourceOpts: SourceClientOptions = { timeoutMs: config.SOURCE_TIMEOUT_MS, maxBytes: config.SOURCE_MAX_PAGE_BYTES };

  // PGlite is single-process, so an in-memory limiter covers it; Postgres serves several workers.
  let limiter: SourceLimiter | undefined;
  const limiterFor = () => (limiter ??= config.DATABASE_URL ? new PgSourceLimiter(config.DATABASE_URL, 20) : new LocalSourceLimiter());

  async function limitsOf(task: TaskRow): Promise<SourceLimits> {
    const [project] = await db.select({ settings: projects.settings }).from(projects).where(eq(projects.id, task.projectId));
    return sourceLimits(project?.settings);
  }

  /** One GET under the project's politeness limits (or under the lane's lease); the slot is freed in the background. */
  async function politeGet(task: TaskRow, limits: SourceLimits, page: number, pageSize: number, signal: AbortSignal, lease?: Permit) {
    if (lease) return getPage(task.sourceUrl, page, pageSize, sourceOpts, signal);
    const permit = await limiterFor().acquire(task.projectId, limits, signal);
    try {
      return await getPage(task.sourceUrl, page, pageSize, sourceOpts, signal);
    } finally {
      // Not awaited: with an rps limit the slot stays held a while, and the page can be stored meanwhile.
      void permit.release().catch(() => {});
    }
  }

  async function readMeta(taskId: string): Promise<SourceMeta> {
    return JSON.parse((await storage.getBuffer(keys.meta(taskId))).toString('utf8')) as SourceMeta;
  }

  return {
    /** page_size=1: total, template, header, footer (only this first answer's count). */
    async probeSource({ taskId }: { taskId: string }): Promise<{ total: number; pagesTotal: number; pageSize: number }> {
      const task = await requireTask(db, taskId);
      await storage.deletePrefix(keys.staging(taskId));
      const first = await politeGet(task, await limitsOf(task), 0, 1, Context.current().cancellationSignal);
      if (first.total > config.MAX_EXPORT_ROWS) {
        throw permanent('export_too_large', `the source reports ${first.total} rows; an export may have at most ${config.MAX_EXPORT_ROWS} (narrow the filters in source_url)`);
      }
      const template = first.template ?? task.options.template;
      // A bad template or header fails the task now, before any page is fetched.
      if (task.type === 'excel') checkExcelLayout(template, first, task.options);
      const columns = templateColumns(template) ?? rowColumns(first.data[0]);
      if (first.total > 0 && columns.length === 0) {
        throw permanent('source_bad_response', 'the source reported rows but its first answer has neither a template nor a row to take columns from');
      }
      const meta: SourceMeta = { total: first.total, pageSize: task.pageSize, columns, template, header: first.header, footer: first.footer };
      await storage.putBuffer(keys.meta(taskId), Buffer.from(JSON.stringify(meta)));
      const pagesTotal = pageCount(first.total, task.pageSize);
      await updateRunning(db, taskId, { totalRows: first.total, pagesTotal, stage: 'fetching', lanes: {} });
      return { total: first.total, pagesTotal, pageSize: task.pageSize };
    },

    /**
     * Fetches pages [fromPage, toPage) and stores them in pieces. Heartbeats the end of the last
     * stored piece; a retried attempt resumes there. A page whose total or row count differs from the probe fails with
     * source_changed (the workflow decides whether to start over).
     */
    async fetchPages(input: FetchPagesInput): Promise<FetchPagesOutput> {
      const ctx = Context.current();
      const task = await requireTask(db, input.taskId);
      const meta = await readMeta(input.taskId);
      const limits = await limitsOf(task);
      const ext = pageExt(task);
      // Without an rps limit a lane keeps one slot for its whole chunk: it has one request in
      // flight at a time, so the cap holds at two queries per chunk rather than two per page.
      let lease: Permit | undefined;
      const resumeAt = (ctx.info.heartbeatDetails as { nextPage?: number } | undefined)?.nextPage;
      // Pages before `stored` are in stored pieces; [stored, next) wait in `piece`.
      let next = Math.max(input.fromPage, resumeAt ?? input.fromPage);
      let stored = next;
      const attemptFrom = next;
      const piece = new PieceBuffer();
      // Heartbeats keep flowing while one slow page is in flight; Temporal throttles them.
      const beat = setInterval(() => ctx.heartbeat({ nextPage: stored }), 1000);
      let lastProgress = 0;
      const progress = async (force: boolean) => {
        if (!force && Date.now() - lastProgress < PROGRESS_EVERY_MS) return;
        lastProgress = Date.now();
        const rows = rowsInPages(input.laneFromPage, stored, meta.total, meta.pageSize);
        await setLaneProgress(db, input.taskId, input.lane, { pages: stored - input.laneFromPage, rows });
      };
      // Only a stored boundary is heartbeated: a retried attempt starts right after a whole piece.
      const store = async () => {
        if (next === stored) return;
        await storage.putBuffer(keys.piece(input.taskId, stored, next, ext), piece.take());
        stored = next;
        ctx.heartbeat({ nextPage: stored });
      };
      try {
        // Acquired inside the try: the heartbeat interval runs while the lane waits for a slot.
        if (!limits.rps) lease = await limiterFor().acquire(task.projectId, limits, ctx.cancellationSignal);
        for (; next < input.toPage; ) {
          const page = await politeGet(task, limits, next, meta.pageSize, ctx.cancellationSignal, lease);
          checkPage(page.total, page.data.length, next, meta);
          piece.add(ext === 'csv' ? encodeCsvRows(page.data, meta.columns) : encodeNdjson(page.data));
          next += 1;
          if (piece.due()) {
            await store();
            await progress(false);
          }
        }
        await store();
        await progress(true);
      } catch (err) {
        // Cancelled (another lane failed): report the CancelledFailure, not the aborted request.
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason instanceof Error ? ctx.cancellationSignal.reason : err;
        if (!(err instanceof ApplicationFailure) || err.nonRetryable) throw err;
        // A transient source error: keep what was fetched, so only the failed page is asked again.
        await store();
        if (stored === attemptFrom) {
          const spent = ctx.info.attempt + (input.failedAttempts ?? 0);
          if (spent >= (input.maxAttempts ?? Infinity)) throw permanent(err.type as TaskErrorCode, err.message);
          throw err;
        }
        await progress(true);
        return { pages: stored - input.fromPage, rows: rowsInPages(input.fromPage, stored, meta.total, meta.pageSize), nextPage: stored, retryAfterMs: msOptionalToNumber(err.nextRetryDelay ?? undefined) };
      } finally {
        clearInterval(beat);
        await lease?.release().catch(() => {});
      }
      return { pages: input.toPage - input.fromPage, rows: rowsInPages(input.fromPage, input.toPage, meta.total, meta.pageSize) };
    },
  };
}

function checkPage(total: number, rows: number, page: number, meta: SourceMeta): void {
  if (total !== meta.total) {
    throw permanent('source_changed', `the source's total changed from ${meta.total} to ${total} (seen on page ${page})`);
  }
  const want = expectedRows(page, meta.total, meta.pageSize);
  if (rows !== want) {
    throw permanent('source_changed', `page ${page} returned ${rows} rows where ${want} were expected for a total of ${meta.total}`);
  }
}

function encodeNdjson(rows: unknown[]): Buffer {
  return Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''), 'utf8');
}
