// probe + fetch: pages go to the store in pieces keyed by their page range (domain/staging/pieces.ts),
// so a retried or resumed activity starts after a whole piece, and no row travels through history.
import { Context } from '@temporalio/activity';
import type { Activities, FetchPagesInput, FetchPagesOutput } from '../model/activities.js';
import { pageCount } from '../model/plan.js';
import { DomainError } from '../domain/errors.js';
import { getProject, settingsOf } from '../domain/projects/projects.js';
import { sourceLimits } from '../domain/source/limiter.js';
import { sourceClientOptions } from '../domain/source/client.js';
import { type LaneAnswer, LaneRequests } from '../domain/source/lane-requests.js';
import { checkPage, PoliteSource } from '../domain/source/polite.js';
import { keys } from '../domain/staging/keys.js';
import { resolveSplit } from '../domain/formats/split.js';
import { checkProbed, metaFromProbe, readMeta, type SourceMeta, writeMeta } from '../domain/staging/meta.js';
import { PageEncoder } from '../domain/staging/page-encoder.js';
import { LaneChunk } from '../domain/staging/lane.js';
import { encodeStaged, stagedExt } from '../domain/staging/pieces.js';
import { sheetLabel, taskSheets } from '../domain/staging/sheets.js';
import { requireTask, taskCancelled } from '../domain/tasks/queries.js';
import { checkTaskSources } from '../domain/tasks/submit.js';
import { recordProbe, setLaneProgress } from '../domain/tasks/status.js';
import { type ActivityDeps, heartbeat } from './deps.js';
import { atBoundary } from './failure.js';

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
     * Fetches pages [fromPage, toPage) and stores them in pieces, as a heartbeating activity does:
     * it starts at the checkpoint an earlier attempt heartbeated, then fetches page after page,
     * stores each piece when it is due and heartbeats the piece's end. A page whose total or row
     * count differs from the probe fails with source_changed (the workflow decides whether to start over).
     */
    async fetchPages(input: FetchPagesInput): Promise<FetchPagesOutput> {
      const ctx = Context.current();
      const { task, limits } = await load(input.taskId);
      const sheet = input.sheet ?? 0;
      const sheets = taskSheets(task);
      const meta = await readMeta(storage, input.taskId, sheet);
      const ext = stagedExt(task.type);
      const chunk = new LaneChunk(input, meta, ctx.info.heartbeatDetails);
      const target = { sourceUrl: sheets[sheet]!.sourceUrl, projectId: task.projectId, limits, pageSize: meta.pageSize, bytes: ext !== 'ndjson' };
      const requests = new LaneRequests(source, target, ctx.cancellationSignal, async () => ((await taskCancelled(db, input.taskId)) ? 0 : PAUSE_GRACE_MS));
      const ask = (page: number) => (chunk.wants(page) ? requests.ask(page) : undefined);
      const inThisSheet = (err: unknown): never => {
        throw inSheet(err, sheetLabel(sheets, sheet));
      };
      // CSV and JSON Lines pages go from their bytes to the staged fragment (the transcoders).
      const encode = async (got: LaneAnswer, page: number): Promise<Buffer> => {
        if (Buffer.isBuffer(got)) return encoder.encode(got, page, meta.pageSize, meta, meta.columns, ext === 'jsonl' ? 'jsonl' : 'csv');
        checkPage(got.total, got.data.length, page, meta);
        return encodeStaged(ext, got.data, meta.columns);
      };
      const store = async () => {
        const piece = chunk.piece();
        if (!piece) return;
        await storage.putBuffer(keys.piece(input.taskId, piece.from, piece.to, ext, sheet), piece.body);
        chunk.stored(piece);
        heartbeat(ctx, chunk.checkpoint());
      };
      const report = async (force: boolean) => {
        const progress = chunk.progress(force);
        if (progress) await setLaneProgress(db, input.taskId, input.lane, progress);
      };
      // Heartbeats keep flowing while the lane waits for its slot or a slow page; Temporal throttles them.
      const beat = setInterval(() => heartbeat(ctx, chunk.checkpoint()), 1000);
      try {
        await requests.open();
        // Page n + 1 is asked for as soon as page n's answer is in, and page n encoded meanwhile:
        // still one request in flight per lane, but the source is never idle while the lane works.
        for (let answer = ask(chunk.next); answer; ) {
          const page = chunk.next;
          const got = await answer.catch(inThisSheet);
          answer = ask(page + 1);
          chunk.add(await encode(got, page).catch(inThisSheet));
          if (chunk.pieceDue()) {
            await store();
            await report(false);
          }
        }
        await store();
        if (ctx.cancellationSignal.aborted) throw cancelled(ctx, undefined);
        await report(true);
        return chunk.done();
      } catch (err) {
        requests.stopAhead();
        // Cancelled (the task, a pause, another lane failed): the pages that arrived are stored
        // first, so a resumed run asks none of them again; then the CancelledFailure, not the
        // aborted request, is reported.
        if (ctx.cancellationSignal.aborted) {
          // Best effort: a store failing now only means a resumed run asks those pages again; the
          // answer stays the cancellation (a pause must not turn into a failed task).
          await store().then(() => report(true)).catch(() => {});
          throw cancelled(ctx, err);
        }
        if (!(err instanceof DomainError) || !err.retryable) throw err;
        // A transient source error: keep what was fetched, so only the failed page is asked again.
        await store();
        const partial = chunk.afterTransient(err, ctx.info.attempt);
        await report(true);
        return partial;
      } finally {
        clearInterval(beat);
        await requests.close();
      }
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
