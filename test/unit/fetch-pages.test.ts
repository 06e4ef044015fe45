// fetchPages and probeSource in a mock activity context over a real database, store and source:
// pieces chain exactly, heartbeats name only stored boundaries, a retried attempt resumes there,
// and transient, permanent and cancelled endings come out as the workflow expects them.
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { projects, tasks } from '../../db/schema.js';
import { chainOf, type FetchHarness, runActivity, startFetchHarness } from '../support/activity-env.js';
import { defaultRow, type SourceRequest, sourcePool } from '../support/source-server.js';

// 115 rows at page_size 10: 12 pages, the last one short.
const TOTAL = 115;
const PAGES = 12;
let h: FetchHarness;
const { source, closeSources } = sourcePool();

const pageRequests = (requests: SourceRequest[]) => requests.filter((r) => r.pageSize !== 1);
const failPage = (page: number, headers?: Record<string, string>) => (r: SourceRequest) =>
  r.pageSize !== 1 && r.page === page ? { status: 500, body: '{"error":"boom"}', ...(headers ? { headers } : {}) } : undefined;
const nextPages = (beats: unknown[]) => beats.map((b) => (b as { nextPage: number }).nextPage);

async function caught(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(v)}`);
    },
    (err: unknown) => err,
  );
}

beforeAll(async () => {
  h = await startFetchHarness({ MAX_EXPORT_ROWS: '1000', MAX_PARTS: '20' });
});

afterAll(async () => {
  await closeSources();
  await h?.close();
});

describe('fetchPages', () => {
  it('stores a whole chunk as pieces chaining from fromPage to toPage, with the source rows in order', async () => {
    // A little delay per page, so the chunk is stored as several pieces (every 250 ms).
    const src = await source({ total: TOTAL, delayMs: (r) => (r.pageSize === 1 ? 0 : 60) });
    const taskId = await h.newTask(src.url);
    const run = runActivity({}, () => h.activities.fetchPages({ taskId, lane: 0, laneFromPage: 0, fromPage: 0, toPage: PAGES }));
    expect(await run.result).toEqual({ pages: PAGES, rows: TOTAL });

    const pieces = await h.storage.list(`staging/${taskId}/pages`);
    const chain = await chainOf(h.storage, taskId, 0, PAGES);
    expect(chain).not.toBeNull();
    expect(chain!.length).toBeGreaterThan(1);
    expect(chain!.map((p) => p.key)).toEqual(pieces); // no piece beside the chain
    const csv = Buffer.concat(await Promise.all(chain!.map((p) => h.storage.getBuffer(p.key)))).toString('utf8');
    const expected = Array.from({ length: TOTAL }, (_, i) => Object.values(defaultRow(i)).map(String));
    expect(parse(csv)).toEqual(expected);

    expect(run.heartbeats.at(-1)).toEqual({ nextPage: PAGES });
    expect(pageRequests(src.requests).map((r) => r.page)).toEqual(Array.from({ length: PAGES }, (_, i) => i));
    const [task] = await h.database.db.select().from(tasks).where(eq(tasks.id, taskId));
    expect(task!.lanes).toEqual({ 0: { pages: PAGES, rows: TOTAL } });
  });

  it('resumes a retried attempt at the heartbeated page without asking for the pages before it', async () => {
    const src = await source({ total: TOTAL });
    const taskId = await h.newTask(src.url);
    const run = runActivity({ attempt: 2, heartbeatDetails: { nextPage: 5 } }, () =>
      h.activities.fetchPages({ taskId, lane: 0, laneFromPage: 0, fromPage: 0, toPage: PAGES }),
    );
    expect(await run.result).toEqual({ pages: PAGES, rows: TOTAL });
    expect(pageRequests(src.requests).map((r) => r.page)).toEqual([5, 6, 7, 8, 9, 10, 11]);
    const pieces = await h.storage.list(`staging/${taskId}/pages`);
    const chain = await chainOf(h.storage, taskId, 5, PAGES);
    expect(chain?.map((p) => p.key)).toEqual(pieces);
    expect(run.heartbeats.at(-1)).toEqual({ nextPage: PAGES });
  });

  describe('a transient error after pages were stored', () => {
    it('returns nextPage at the failed page, with the pages before it stored and heartbeated no further', async () => {
      const src = await source({ total: TOTAL, delayMs: (r) => (r.pageSize === 1 ? 0 : 60), intercept: failPage(7) });
      const taskId = await h.newTask(src.url);
      const run = runActivity({}, () => h.activities.fetchPages({ taskId, lane: 0, laneFromPage: 0, fromPage: 0, toPage: PAGES }));
      const out = await run.result;
      expect(out).toEqual({ pages: 7, rows: 70, nextPage: 7, retryAfterMs: undefined });

      const chain = await chainOf(h.storage, taskId, 0, 7);
      expect(chain?.map((p) => p.key)).toEqual(await h.storage.list(`staging/${taskId}/pages`));
      // Every heartbeat names the start or the end of a stored piece, and none goes past page 7.
      const boundaries = new Set([0, ...chain!.map((p) => p.to)]);
      expect(nextPages(run.heartbeats).length).toBeGreaterThan(0);
      for (const n of nextPages(run.heartbeats)) expect(boundaries).toContain(n);
      expect(run.heartbeats.at(-1)).toEqual({ nextPage: 7 });
      expect(Math.max(...pageRequests(src.requests).map((r) => r.page))).toBe(7);
    });

    it("honours the source's Retry-After in retryAfterMs", async () => {
      const src = await source({ total: TOTAL, intercept: failPage(4, { 'retry-after': '3' }) });
      const taskId = await h.newTask(src.url);
      const out = await runActivity({}, () => h.activities.fetchPages({ taskId, lane: 0, laneFromPage: 0, fromPage: 0, toPage: PAGES })).result;
      expect(out).toEqual({ pages: 4, rows: 40, nextPage: 4, retryAfterMs: 3000 });
    });
  });

  describe('a transient error on the first page of the attempt', () => {
    const fetchFailing = async (info: { attempt: number }, budget: { failedAttempts?: number; maxAttempts: number }) => {
      const src = await source({ total: TOTAL, intercept: failPage(0) });
      const taskId = await h.newTask(src.url);
      const run = runActivity(info, () => h.activities.fetchPages({ taskId, lane: 0, laneFromPage: 0, fromPage: 0, toPage: PAGES, ...budget }));
      const err = await caught(run.result);
      expect(await h.storage.list(`staging/${taskId}/pages`)).toEqual([]);
      expect(nextPages(run.heartbeats).every((n) => n === 0)).toBe(true);
      return err;
    };

    it('throws a retryable source_unreachable while the page has attempts left', async () => {
      const err = await fetchFailing({ attempt: 1 }, { maxAttempts: 3 });
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect(err).toMatchObject({ type: 'source_unreachable', nonRetryable: false });
      expect((err as Error).message).toMatch(/HTTP 500/);
    });

    it('throws non-retryable once the per-page budget is spent', async () => {
      const err = await fetchFailing({ attempt: 2 }, { failedAttempts: 1, maxAttempts: 3 });
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect(err).toMatchObject({ type: 'source_unreachable', nonRetryable: true });
    });
  });

  it("fails non-retryable with source_changed when the source's total changes mid-chunk", async () => {
    const src = await source({
      total: TOTAL,
      intercept: (r) => {
        if (r.pageSize !== 1 && r.page === 6) src.options.total = TOTAL + 10;
        return undefined;
      },
    });
    const taskId = await h.newTask(src.url);
    const err = await caught(runActivity({}, () => h.activities.fetchPages({ taskId, lane: 0, laneFromPage: 0, fromPage: 0, toPage: PAGES })).result);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'source_changed', nonRetryable: true });
    expect((err as Error).message).toMatch(/page 6/);
    expect(Math.max(...pageRequests(src.requests).map((r) => r.page))).toBe(6);
  });

  it('ends as cancelled, promptly, when cancelled while a slow page is in flight', async () => {
    const src = await source({ total: TOTAL, delayMs: (r) => (r.pageSize === 1 ? 0 : 2000) });
    const taskId = await h.newTask(src.url);
    const run = runActivity({}, () => h.activities.fetchPages({ taskId, lane: 0, laneFromPage: 0, fromPage: 0, toPage: PAGES }));
    await vi.waitFor(() => expect(pageRequests(src.requests)).toHaveLength(1), { timeout: 5000, interval: 20 });
    await new Promise((r) => setTimeout(r, 200));
    const cancelledAt = Date.now();
    run.env.cancel();
    const err = await caught(run.result);
    const took = Date.now() - cancelledAt;
    expect(err).toBeInstanceOf(CancelledFailure);
    expect(err).not.toBeInstanceOf(ApplicationFailure);
    expect(took).toBeLessThan(1500);
    // The request was really dropped: the source saw its client go away before it answered.
    await vi.waitFor(() => expect(src.aborted.map((r) => r.page)).toEqual([0]), { timeout: 3000 });
    expect(pageRequests(src.requests)).toHaveLength(1);
    expect(await h.storage.list(`staging/${taskId}/pages`)).toEqual([]);
  });
});

describe('probeSource', () => {
  it('fails non-retryable with export_too_large past MAX_EXPORT_ROWS, after the probe request alone', async () => {
    const src = await source({ total: h.config.MAX_EXPORT_ROWS + 1 });
    const taskId = await h.newTask(src.url, { probe: false });
    const err = await caught(runActivity({}, () => h.activities.probeSource({ taskId })).result);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'export_too_large', nonRetryable: true });
    expect(src.requests.map((r) => [r.page, r.pageSize])).toEqual([[0, 1]]);
    expect(await h.storage.list(`staging/${taskId}`)).toEqual([]);
  });
});

describe('probeSource and MAX_PARTS', () => {
  it('fails non-retryable with too_many_parts when max_file_rows makes the total more than MAX_PARTS files, after the probe request alone', async () => {
    const src = await source({ total: TOTAL });
    const taskId = await h.newTask(src.url, { probe: false });
    // 115 rows at 5 a file: 23 files, over MAX_PARTS (20).
    await h.database.db.update(tasks).set({ options: { max_file_rows: 5 } }).where(eq(tasks.id, taskId));
    const err = await caught(runActivity({}, () => h.activities.probeSource({ taskId })).result);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'too_many_parts', nonRetryable: true, message: expect.stringMatching(/115 rows at 5 a file make 23 files; a task may have at most 20 files/) });
    expect(src.requests.map((r) => [r.page, r.pageSize])).toEqual([[0, 1]]);
    expect(await h.storage.list(`staging/${taskId}`)).toEqual([]);
    // At 6 a file they are 20: accepted.
    await h.database.db.update(tasks).set({ options: { max_file_rows: 6 } }).where(eq(tasks.id, taskId));
    expect(await runActivity({}, () => h.activities.probeSource({ taskId })).result).toMatchObject({ total: TOTAL });
  });
});

describe('the source allow-list at every attempt', () => {
  it('fails a later attempt with source_host_not_allowed once the host is off the list, asking the source nothing', async () => {
    const src = await source({ total: TOTAL });
    const taskId = await h.newTask(src.url);
    const asked = src.requests.length;
    await h.database.db.update(projects).set({ sourceHosts: ['127.0.0.1:1'] }).where(eq(projects.id, h.projectId));
    try {
      const fetchErr = await caught(runActivity({}, () => h.activities.fetchPages({ taskId, lane: 0, laneFromPage: 0, fromPage: 0, toPage: PAGES })).result);
      expect(fetchErr).toBeInstanceOf(ApplicationFailure);
      expect(fetchErr).toMatchObject({ type: 'source_host_not_allowed', nonRetryable: true });
      const probeErr = await caught(runActivity({}, () => h.activities.probeSource({ taskId })).result);
      expect(probeErr).toMatchObject({ type: 'source_host_not_allowed', nonRetryable: true });
      expect(src.requests.length).toBe(asked);
    } finally {
      await h.database.db.update(projects).set({ sourceHosts: ['127.0.0.1'] }).where(eq(projects.id, h.projectId));
    }
  });
});
