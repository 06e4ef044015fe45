// probe + fetch: pages go to the store in pieces keyed by their page range (domain/staging/pieces.ts),
// so a retried or resumed activity starts after a whole piece, and no row travels through history.
import { Context } from '@temporalio/activity';
import type { Activities, FetchPagesInput, FetchPagesOutput } from '../model/activities.js';
import { pageCount, rowsInPages } from '../model/plan.js';
import { DomainError } from '../domain/errors.js';
import { getProject, settingsOf } from '../domain/projects/projects.js';
import { sourceLimits, type Permit } from '../domain/source/limiter.js';
import { type SourcePage, sourceClientOptions } from '../domain/source/client.js';
import { checkPage, PoliteSource } from '../domain/source/polite.js';
import { stopAfterGrace } from '../domain/source/stop.js';
import { keys } from '../domain/staging/keys.js';
import { resolveSplit } from '../domain/formats/split.js';
import { checkProbed, metaFromProbe, readMeta, type SourceMeta, writeMeta } from '../domain/staging/meta.js';
import { PageEncoder } from '../domain/staging/page-encoder.js';
import { encodeStaged, PieceBuffer, stagedExt } from '../domain/staging/pieces.js';
import { sheetLabel, taskSheets } from '../domain/staging/sheets.js';
import { requireTask, taskCancelled } from '../domain/tasks/queries.js';
import { checkTaskSources } from '../domain/tasks/submit.js';
import { recordProbe, setLaneProgress } from '../domain/tasks/status.js';
import { type ActivityDeps, heartbeat } from './deps.js';
import { atBoundary } from './failure.js';

const PROGRESS_EVERY_MS = 500;
// How long a paused lane lets the page in flight finish before it aborts the request: with the
// heartbeat that carries the cancel (at most a second), a pause reaches the source within ~1.5 s.
const PAUSE_GRACE_MS = 500;

export function createFetchActivities({ db, storage, config }: Pick<ActivityDeps, 'db' | 'storage' | 'config'>): Pick<Activities, 'probeSource' | 'fetchPages'> {
  const source = new PoliteSource({
    client: sourceClientOptions(config),
    databaseUrl: config.DATABASE_URL,
  });
  const encoder = new PageEncoder(config.SOURCE_DECODE_THREADS);
  // Every attempt (first run, retry, resume, a later chunk) reads the project afresh: a host an
  // admin removed from source_hosts is not asked again, whatever was allowed at submission.
  const load = async (taskId: string) => {
    const task = await requireTask(db, taskId);
    const project = await getProject(db, task.projectId);
    if (!project) throw new DomainError('internal_error', `the task's project ${task.projectId} is gone`);
    checkTaskSources(project, task); // source_host_not_allowed, permanent
    const settings = settingsOf(project);
    return { task, settings, limits: sourceLimits(settings) };
  };

  return atBoundary({
    /**
     * page_size=1: total, template, header, footer (only this first answer's count). A workbook of
     * several sheets probes each sheet's source, in parallel within the politeness limits.
     */
    async probeSource({ taskId }) {
      const ctx = Context.current();
      // Heartbeats flow from the start, like fetchPages's: a source slow to give its first answer (or
      // a wait for a politeness slot) must not look like a dead worker; they also carry cancellation.
      const beat = setInterval(() => heartbeat(ctx), 1000);
      try {
        const { task, settings, limits } = await load(taskId);
        await storage.deletePrefix(keys.staging(taskId));
        const sheets = taskSheets(task);
        const probed = await Promise.allSettled(
          sheets.map((spec) =>
            source
              .get({ sourceUrl: spec.sourceUrl, projectId: task.projectId, limits, page: 0, pageSize: 1, signal: ctx.cancellationSignal })
              .then((first) => metaFromProbe(first, { type: task.type, pageSize: task.pageSize, options: spec.options }, config.MAX_EXPORT_ROWS)),
          ),
        );
        const failed = probed.findIndex((p) => p.status === 'rejected');
        if (failed >= 0) throw inSheet((probed[failed] as PromiseRejectedResult).reason, sheetLabel(sheets, failed));
        const metas = probed.map((p) => (p as PromiseFulfilledResult<SourceMeta>).value);
        const total = checkProbed(task.type, metas, resolveSplit(task.type, task.options, settings, config.MAX_PARTS), config.MAX_EXPORT_ROWS);
        for (const [i, meta] of metas.entries()) await writeMeta(storage, taskId, meta, i);
        const pagesTotal = metas.reduce((n, m) => n + pageCount(m.total, task.pageSize), 0);
        await recordProbe(db, taskId, total, pagesTotal);
        const perSheet = metas.map((m) => ({ total: m.total, pagesTotal: pageCount(m.total, task.pageSize) }));
        return { total, pagesTotal, pageSize: task.pageSize, ...(sheets.length > 1 ? { sheets: perSheet } : {}) };
      } finally {
        clearInterval(beat);
      }
    },

    /**
     * Fetches pages [fromPage, toPage) and stores them in pieces. Heartbeats the end of the last
     * stored piece; a retried attempt resumes there. A page whose total or row count differs from
     * the probe fails with source_changed (the workflow decides whether to start over).
     */
    async fetchPages(input: FetchPagesInput): Promise<FetchPagesOutput> {
      const ctx = Context.current();
      const { task, limits } = await load(input.taskId);
      const sheet = input.sheet ?? 0;
      const sheets = taskSheets(task);
      const { sourceUrl } = sheets[sheet]!;
      const meta = await readMeta(storage, input.taskId, sheet);
      const ext = stagedExt(task.type);
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
      const beat = setInterval(() => heartbeat(ctx, { nextPage: stored }), 1000);
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
        await storage.putBuffer(keys.piece(input.taskId, stored, next, ext, sheet), piece.take());
        stored = next;
        heartbeat(ctx, { nextPage: stored });
      };
      // The lane asks for page n + 1 as soon as page n's answer is in, and encodes page n meanwhile:
      // still one request in flight per lane, but the source is never idle while the lane works.
      const ahead = new AbortController();
      // At once for a cancelled task (its pages are thrown away); otherwise (a pause, another lane
      // failed) a page already arriving is kept rather than asked again by the resumed run.
      const stopping = stopAfterGrace(ctx.cancellationSignal, async () => ((await taskCancelled(db, input.taskId)) ? 0 : PAUSE_GRACE_MS));
      const signal = AbortSignal.any([stopping.signal, ahead.signal]);
      const ask = (page: number): Promise<Buffer | SourcePage> | undefined => {
        // Cancelled or paused: no new request; the one in flight may still finish within the grace.
        if (page >= input.toPage || ctx.cancellationSignal.aborted) return undefined;
        const request = { sourceUrl, projectId: task.projectId, limits, page, pageSize: meta.pageSize, signal, lease };
        // CSV and JSON Lines pages go from their bytes to the staged fragment (the transcoders).
        const answer = ext !== 'ndjson' ? source.getBytes(request) : source.get(request);
        answer.catch(() => {}); // awaited below, or abandoned when the lane stops first
        return answer;
      };
      try {
        // Acquired inside the try: the heartbeat interval runs while the lane waits for a slot.
        if (!limits.rps) lease = await source.lease(task.projectId, limits, ctx.cancellationSignal);
        let answer = ask(next);
        for (; next < input.toPage && answer; ) {
          try {
            const got = await answer!;
            answer = ask(next + 1);
            if (Buffer.isBuffer(got)) {
              piece.add(await encoder.encode(got, next, meta.pageSize, meta, meta.columns, ext === 'jsonl' ? 'jsonl' : 'csv'));
            } else {
              checkPage(got.total, got.data.length, next, meta);
              piece.add(encodeStaged(ext, got.data, meta.columns));
            }
          } catch (err) {
            ahead.abort();
            throw inSheet(err, sheetLabel(sheets, sheet));
          }
          next += 1;
          if (piece.due()) {
            await store();
            await progress(false);
          }
        }
        await store();
        if (ctx.cancellationSignal.aborted) throw cancelled(ctx, undefined);
        await progress(true);
      } catch (err) {
        // Cancelled (the task, a pause, another lane failed): the pages that arrived are stored
        // first, so a resumed run asks none of them again; then the CancelledFailure, not the
        // aborted request, is reported.
        if (ctx.cancellationSignal.aborted) {
          // Best effort: a store failing now only means a resumed run asks those pages again; the
          // answer stays the cancellation (a pause must not turn into a failed task).
          await store().then(() => progress(true)).catch(() => {});
          throw cancelled(ctx, err);
        }
        if (!(err instanceof DomainError) || !err.retryable) throw err;
        // A transient source error: keep what was fetched, so only the failed page is asked again.
        await store();
        if (stored === attemptFrom) {
          const spent = ctx.info.attempt + (input.failedAttempts ?? 0);
          if (spent >= (input.maxAttempts ?? Infinity)) throw new DomainError(err.code, err.message);
          throw err;
        }
        await progress(true);
        return { pages: stored - input.fromPage, rows: rowsInPages(input.fromPage, stored, meta.total, meta.pageSize), nextPage: stored, retryAfterMs: err.nextRetryDelayMs };
      } finally {
        clearInterval(beat);
        ahead.abort();
        stopping.dispose();
        await lease?.release().catch(() => {});
      }
      return { pages: input.toPage - input.fromPage, rows: rowsInPages(input.fromPage, input.toPage, meta.total, meta.pageSize) };
    },
  });
}

/** The activity's CancelledFailure (what Temporal expects of a cancelled activity), else the error. */
function cancelled(ctx: Context, err: unknown): unknown {
  return ctx.cancellationSignal.reason instanceof Error ? ctx.cancellationSignal.reason : (err ?? new Error('cancelled'));
}

/** A failure about one sheet of several says which: the same code, the sheet named first. */
function inSheet(err: unknown, label: string): unknown {
  return err instanceof DomainError ? err.labelled(label) : err;
}
