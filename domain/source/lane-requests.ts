// A fetch lane's requests to its source (activities/fetch-pages.ts): one page in flight at a time,
// under the project's politeness limits, stopped when the activity is cancelled or leaves early.
import type { SourcePage } from './client.js';
import type { Permit, SourceLimits } from './limiter.js';
import type { PageRequest, PoliteSource } from './polite.js';
import { stopAfterGrace } from './stop.js';

/**
 * Without an rps limit a lane keeps one politeness slot for its whole chunk: it has one request in
 * flight at a time, so the cap holds at two queries per chunk rather than two per page.
 */
export const holdsSlotForChunk = (limits: SourceLimits): boolean => !limits.rps;

export interface LaneSource {
  sourceUrl: string;
  projectId: string;
  limits: SourceLimits;
  pageSize: number;
  /** The page's bytes unparsed (CSV and JSON Lines exports transcode them), else the parsed page. */
  bytes: boolean;
}

export type LaneAnswer = Buffer | SourcePage;

export class LaneRequests {
  private lease: Permit | undefined;
  private readonly stopping: ReturnType<typeof stopAfterGrace>;
  // Aborts the page asked ahead when the lane leaves before awaiting it.
  private readonly ahead = new AbortController();
  private readonly signal: AbortSignal;

  /**
   * `cancel` is the activity's cancellation: no page is asked after it, and the one in flight is
   * aborted after `graceMs()` (0 for a cancelled task, whose pages are thrown away; otherwise a
   * page already arriving is kept rather than asked again by the resumed run).
   */
  constructor(
    private readonly source: Pick<PoliteSource, 'lease' | 'get' | 'getBytes'>,
    private readonly target: LaneSource,
    private readonly cancel: AbortSignal,
    graceMs: () => Promise<number>,
  ) {
    this.stopping = stopAfterGrace(cancel, graceMs);
    this.signal = AbortSignal.any([this.stopping.signal, this.ahead.signal]);
  }

  /** Takes the chunk's slot when the limits call for one (the wait for it is cancellable). */
  async open(): Promise<void> {
    const { projectId, limits } = this.target;
    if (holdsSlotForChunk(limits)) this.lease = await this.source.lease(projectId, limits, this.cancel);
  }

  /** Asks for `page`, or nothing once cancelled; the answer is awaited by the caller or abandoned. */
  ask(page: number): Promise<LaneAnswer> | undefined {
    if (this.cancel.aborted) return undefined;
    const { bytes, ...target } = this.target;
    const request: PageRequest = { ...target, page, signal: this.signal, lease: this.lease };
    const answer: Promise<LaneAnswer> = bytes ? this.source.getBytes(request) : this.source.get(request);
    answer.catch(() => {});
    return answer;
  }

  /** Drops the request in flight at once (the lane is leaving on an error). */
  stopAhead(): void {
    this.ahead.abort();
  }

  /** Drops any request in flight and frees the chunk's slot. */
  async close(): Promise<void> {
    this.ahead.abort();
    this.stopping.dispose();
    await this.lease?.release().catch(() => {});
  }
}
