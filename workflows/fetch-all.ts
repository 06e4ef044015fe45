// Fetching every page: lanes in parallel, each a list of chunks (model/plan.ts), with the design's
// restart-once rule when the source changes underneath. A resumed export fetches only the pages
// its paused run had not staged.
import { ActivityFailure, ApplicationFailure, CancellationScope, sleep } from '@temporalio/workflow';
import type { Activities, FetchPagesOutput, ProbeOutput } from '../model/activities.js';
import { chunkRange, type Lane, MAX_LANES, PAGES_PER_ACTIVITY, pageCount, planLanes, planSheetLanes } from '../model/plan.js';
import { type RetrySettings, retryWait } from './profiles.js';

export interface FetchProxies {
  /** probeSource and the first call of each chunk. */
  source: Pick<Activities, 'probeSource' | 'fetchPages'>;
  /** A lane continuing after a transient error, one step further along the backoff. */
  resume: Pick<Activities, 'fetchPages'>;
  work: Pick<Activities, 'stagedGaps' | 'discardStaged'>;
  /** verifyStaged, a local activity (the export's short steps). */
  verify: Pick<Activities, 'verifyStaged'>;
}

/** Told the export's size and each chunk fetched (workflows/visibility.ts shows it in the UI). */
export interface FetchProgress {
  planned(total: number, pagesTotal: number, pagesDone: number): void;
  fetched(pages: number): void;
}

const silent: FetchProgress = { planned() {}, fetched() {} };

export interface FetchOptions {
  /** A paused export resumed: only the pages its earlier run did not stage. */
  resumed?: boolean | undefined;
  progress?: FetchProgress;
  /** The probe the caller already made (the sync export checks its size first). */
  probed?: ProbeOutput;
  /** Pages per fetch activity (model/plan.ts): PAGES_PER_CHUNK in the export, PAGES_PER_ACTIVITY in the sync export's local ones. */
  chunkPages?: number;
}

/** The design's restart rule: a source that changes mid-export gets one fresh start, then fails. */
export async function fetchAll(taskId: string, acts: FetchProxies, retry: RetrySettings, opts: FetchOptions = {}): Promise<void> {
  const { resumed = false, progress = silent, probed, chunkPages = PAGES_PER_ACTIVITY } = opts;
  for (let attempt = 1; ; attempt++) {
    try {
      const lanes =
        attempt === 1 && resumed ? await gapLanes(taskId, acts, progress) : attempt === 1 && probed ? planned(probed, progress) : await probedLanes(taskId, acts, progress);
      // A workbook of several sheets may plan more lanes than one export runs at once; a single
      // sheet's lanes (at most MAX_LANES, or a resumed export's gaps) all start together, as always.
      const limit = lanes.some((l) => l.sheet !== undefined) ? MAX_LANES : lanes.length;
      await allOrNothing(lanes.map((lane) => () => fetchLane(taskId, lane, acts, retry, progress, chunkPages)), limit);
      await acts.verify.verifyStaged({ taskId });
      return;
    } catch (err) {
      const { code, message } = describe(err);
      if (code !== 'source_changed') throw err;
      if (attempt > 1) throw ApplicationFailure.create({ type: code, nonRetryable: true, message: `the source changed again after the export had restarted once: ${message}` });
      await acts.work.discardStaged({ taskId });
    }
  }
}

async function probedLanes(taskId: string, { source }: FetchProxies, progress: FetchProgress): Promise<Lane[]> {
  return planned(await source.probeSource({ taskId }), progress);
}

function planned({ total, pagesTotal, pageSize, sheets }: ProbeOutput, progress: FetchProgress): Lane[] {
  progress.planned(total, pagesTotal, 0);
  return sheets ? planSheetLanes(sheets, pageSize) : planLanes(total, pageSize);
}

/** Each range of pages the paused run had not staged becomes a lane of its own. */
async function gapLanes(taskId: string, { work }: FetchProxies, progress: FetchProgress): Promise<Lane[]> {
  const { total, pageSize, gaps } = await work.stagedGaps({ taskId });
  const pagesTotal = pageCount(total, pageSize);
  progress.planned(total, pagesTotal, pagesTotal - gaps.reduce((n, g) => n + g.to - g.from, 0));
  return gaps.map((g, i) => ({ lane: i, fromPage: g.from, toPage: g.to, ...(g.sheet !== undefined ? { sheet: g.sheet } : {}) }));
}

/**
 * Runs the jobs together, at most `limit` at a time (each runner takes the next job as it finishes
 * one, so with no more jobs than runners every job starts at once, in order); the first failure
 * cancels the others, and it is thrown only once all have stopped, so the cleanup that follows
 * never races a lane still writing pages.
 */
export async function allOrNothing(jobs: Array<() => Promise<void>>, limit = jobs.length): Promise<void> {
  const scope = new CancellationScope();
  let first: { err: unknown } | undefined;
  let next = 0;
  const runner = async () => {
    while (next < jobs.length && !first) {
      const job = jobs[next++]!;
      await job().catch((err: unknown) => {
        if (!first) {
          first = { err };
          scope.cancel();
        }
      });
    }
  };
  await scope.run(() => Promise.allSettled(Array.from({ length: Math.min(limit, jobs.length) }, runner)));
  if (first) throw first.err;
}

async function fetchLane(taskId: string, lane: Lane, { source, resume }: FetchProxies, retry: RetrySettings, progress: FetchProgress, chunkPages: number): Promise<void> {
  const base = { taskId, lane: lane.lane, laneFromPage: lane.fromPage, ...(lane.sheet !== undefined ? { sheet: lane.sheet } : {}) };
  for (const [chunkFrom, toPage] of chunkRange(lane.fromPage, lane.toPage, chunkPages)) {
    let out: FetchPagesOutput = await source.fetchPages({ ...base, fromPage: chunkFrom, toPage });
    progress.fetched(out.pages);
    while (out.nextPage !== undefined) {
      // The failed request was attempt 1 of that page; Retry-After, when given, sets the wait.
      await sleep(out.retryAfterMs ?? retryWait(retry));
      out = await resume.fetchPages({ ...base, fromPage: out.nextPage, toPage, failedAttempts: 1, maxAttempts: retry.maxAttempts });
      progress.fetched(out.pages);
    }
  }
}

/**
 * The failure type and sentence a failure carries (an activity's ApplicationFailure type is a task's
 * error code, or a step's own signal such as waiting_for_slot); anything else is internal_error.
 */
export function describe(err: unknown): { code: string; message: string } {
  let e: unknown = err;
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  if (e instanceof ApplicationFailure && e.type) return { code: e.type, message: e.message };
  return { code: 'internal_error', message: e instanceof Error ? e.message : String(e) };
}
