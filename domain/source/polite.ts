// Requests to a project's source under its politeness limits (limiter.ts): every GET takes a slot,
// or runs under a lane's lease when the lane holds one for a whole chunk of pages.
import { DomainError } from '../errors.js';
import { expectedRows } from '../../model/plan.js';
import { metrics } from '../../platform/metrics.js';
import { errorKind, getPage, getPageBytes, type SourceClientOptions, type SourcePage } from './client.js';
import { LocalSourceLimiter, PgSourceLimiter, type Permit, type SourceLimiter, type SourceLimits } from './limiter.js';

export interface PageRequest {
  sourceUrl: string;
  projectId: string;
  limits: SourceLimits;
  page: number;
  pageSize: number;
  signal: AbortSignal;
  /** A slot the caller already holds. */
  lease?: Permit | undefined;
  /** Tighter limits for this request than the configured ones (a preview's). */
  client?: Pick<SourceClientOptions, 'maxBytes' | 'onBytes'>;
}

// PGlite without a wire: one in-memory limiter for the process covers its API (previews, sync
// exports) and its worker (exports) together. The embedded start's API process serves PGlite to a
// worker process (docs/adr/0053-embedded-worker-process.md), and both share the slots through it
// (shareSourceSlots).
let processLimiter: SourceLimiter = new LocalSourceLimiter();
const LIMITER_POOL = 4;

/**
 * This process's sources share their slots through the database at `url` (the embedded start's
 * API process: its own PGlite over the loopback, where its worker process takes slots too).
 */
export function shareSourceSlots(url: string): void {
  processLimiter = new PgSourceLimiter(url, LIMITER_POOL);
}

export class PoliteSource {
  private limiter: SourceLimiter | undefined;

  constructor(private readonly opts: { client: SourceClientOptions; databaseUrl?: string | undefined }) {}

  // Postgres serves several processes: the limiter's slots are shared through it. Its queries are
  // short (a slot is a leased row, not a held connection), so a small pool serves any number of slots.
  private limiterFor(): SourceLimiter {
    return (this.limiter ??= this.opts.databaseUrl ? new PgSourceLimiter(this.opts.databaseUrl, LIMITER_POOL) : processLimiter);
  }

  /** One slot held across several requests (released by the caller). */
  lease(projectId: string, limits: SourceLimits, signal: AbortSignal): Promise<Permit> {
    return this.limiterFor().acquire(projectId, limits, signal);
  }

  get(r: PageRequest): Promise<SourcePage> {
    return this.polite(r, () => getPage(r.sourceUrl, r.page, r.pageSize, { ...this.opts.client, ...r.client }, r.signal));
  }

  /** The page's body unparsed (a CSV export parses it on another thread). */
  getBytes(r: PageRequest): Promise<Buffer> {
    return this.polite(r, () => getPageBytes(r.sourceUrl, r.page, r.pageSize, { ...this.opts.client, ...r.client }, r.signal));
  }

  private async polite<T>(r: PageRequest, request: () => Promise<T>): Promise<T> {
    if (r.lease) return this.timed(r, request);
    const permit = await this.lease(r.projectId, r.limits, r.signal);
    try {
      return await this.timed(r, request);
    } finally {
      // Not awaited: with an rps limit the slot stays held a while, and the page can be stored meanwhile.
      void permit.release().catch(() => {});
    }
  }

  /** One request, measured (the wait for a politeness slot is not part of it). */
  private async timed<T>(r: PageRequest, request: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const out = await request();
      metrics.sourceRequests.observe({ outcome: 'ok' }, seconds());
      return out;
    } catch (err) {
      if (r.signal.aborted) {
        metrics.sourceRequests.observe({ outcome: 'cancelled' }, seconds());
      } else {
        metrics.sourceRequests.observe({ outcome: 'error' }, seconds());
        metrics.sourceErrors.inc({ project_id: r.projectId, kind: errorKind(err) });
      }
      throw err;
    }
  }
}

/** The design's consistency rule: every page must agree with the probe's total. */
export function checkPage(total: number, rows: number, page: number, probed: { total: number; pageSize: number }): void {
  if (total !== probed.total) {
    throw new DomainError('source_changed', `the source's total changed from ${probed.total} to ${total} (seen on page ${page})`);
  }
  const want = expectedRows(page, probed.total, probed.pageSize);
  if (rows !== want) {
    throw new DomainError('source_changed', `page ${page} returned ${rows} rows where ${want} were expected for a total of ${probed.total}`);
  }
}
