// Retries against a real source: growing intervals, Retry-After honoured, five attempts per page,
// permanent errors fail fast, and a failed export leaves nothing staged (compensation).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithProject, type TestEnv } from '../support/env.js';
import { csvRows, runExport } from '../support/source-runs.js';
import { pageRequests, type SourceServer, sourcePool } from '../support/source-server.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

const run = (src: SourceServer, pageSize?: number, timeoutMs?: number) => runExport(env, key, src, pageSize, timeoutMs);

const gaps = (reqs: { at: number }[]) => reqs.slice(1).map((r, i) => r.at - reqs[i]!.at);

beforeAll(async () => {
  // 500 ms: the dev server fires timers up to ~1 s late, so shorter intervals would all look alike.
  ({ env, key } = await startWithProject({ SOURCE_RETRY_INITIAL_MS: '500' }, { max_running_tasks: 10 }));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

describe('retries', () => {
  // Page 0 fails before the activity stored anything (Temporal's retry takes nextRetryDelay);
  // page 1 fails after page 0 was stored (the workflow's own wait takes retryAfterMs).
  it.each([
    [429, 0],
    [503, 1],
  ])('waits the Retry-After of a %i on page %i before asking again', async (status, page) => {
    const src = await source({
      total: 300,
      intercept: (r) => (r.pageSize !== 1 && r.page === page && pageRequests(src, page).length === 1 ? { status, body: 'slow down', headers: { 'retry-after': '2' } } : undefined),
    });
    const task = await run(src);
    expect(task.status).toBe('succeeded');
    const [gap] = gaps(pageRequests(src, page));
    // the configured first interval is 500 ms: only Retry-After explains a wait of 2 s
    expect(gap).toBeGreaterThanOrEqual(1950);
    expect(gap).toBeLessThan(4000);
  });

  it('retries transient failures with growing intervals, then fails after 5 attempts and removes the staged data', async () => {
    // 5 lanes; page 250 (lane 2) always fails, so the other lanes must be stopped before compensation.
    const src = await source({ total: 50_000, delayMs: () => 5, intercept: (r) => (r.pageSize !== 1 && r.page === 250 ? { status: 503, body: 'down' } : undefined) });
    const task = await run(src);
    expect(task.status).toBe('failed');
    expect(task.error).toEqual({ code: 'source_unreachable', message: 'source answered HTTP 503 for page 250 (page_size 100)' });
    const attempts = pageRequests(src, 250);
    expect(attempts).toHaveLength(5);
    const g = gaps(attempts);
    // 500, 1000, 2000, 4000 ms (each may fire up to a second late)
    g.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(500 * 2 ** i * 0.95));
    expect(g[3]!).toBeGreaterThan(g[0]! * 2);
    const served = src.requests.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(src.requests.length).toBe(served);
    expect(await env.core.storage.list(`staging/${task.task_id}`)).toEqual([]);
    expect(await env.core.storage.list(`files/${task.task_id}`)).toEqual([]);
  });

  it('gives every page its own five attempts, however many pages of a chunk fail', async () => {
    const flaky = new Set([3, 20, 40, 60, 80]);
    const src = await source({ total: 10_000, intercept: (r) => (r.pageSize !== 1 && flaky.has(r.page) && pageRequests(src, r.page).length <= 2 ? { status: 502, body: '' } : undefined) });
    const task = await run(src);
    expect(task.status).toBe('succeeded');
    for (const p of flaky) expect(pageRequests(src, p)).toHaveLength(3);
    expect((await csvRows(task)).map((r) => Number(r.id))).toEqual(Array.from({ length: 10_000 }, (_, i) => i + 1));
  });

  it('fails fast on a permanent error (HTTP 400), asking once', async () => {
    const src = await source({ total: 500, intercept: (r) => (r.pageSize !== 1 && r.page === 3 ? { status: 400, body: '{}' } : undefined) });
    const task = await run(src);
    expect(task.error.code).toBe('source_bad_response');
    expect(pageRequests(src, 3)).toHaveLength(1);
  });
});

