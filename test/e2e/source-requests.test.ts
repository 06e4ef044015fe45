// Source requests end to end (issue 9, part 5): a probe slower than the heartbeat timeout succeeds
// (the probe heartbeats like any fetch), a body trickling one byte a second fails within
// SOURCE_REQUEST_DEADLINE_MS and the retry budget, and a signed query string reaches the source
// byte for byte, with only page and page_size added or replaced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

// Heartbeat timeout at its minimum; the default 30 s idle timeout lets a slow first answer through.
let slow: TestEnv;
// A short deadline, above an idle timeout that a byte a second never trips, and two attempts a page.
let strict: TestEnv;
let slowKey: string;
let strictKey: string;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  [slow, strict] = await Promise.all([
    // The defaults: FETCH_HEARTBEAT_TIMEOUT_MS 10 s, SOURCE_TIMEOUT_MS 30 s.
    startTestEnv(),
    startTestEnv({ SOURCE_TIMEOUT_MS: '2000', SOURCE_REQUEST_DEADLINE_MS: '3000', SOURCE_RETRY_MAX_ATTEMPTS: '2', SOURCE_RETRY_INITIAL_MS: '200' }),
  ]);
  [{ api_key: slowKey }, { api_key: strictKey }] = await Promise.all([slow.createProject(), strict.createProject()]);
});

afterAll(async () => {
  await closeSources();
  await Promise.all([slow?.close(), strict?.close()]);
});

async function submit(env: TestEnv, key: string, sourceUrl: string) {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: sourceUrl, operator_id: 'op-src', page_size: 100 } });
  expect(res.status).toBe(202);
  return res.json.task_id as string;
}

describe('source requests', () => {
  it('succeeds when the first answer takes 20 s (twice the heartbeat timeout), with one probe request', async () => {
    // 20 s against FETCH_HEARTBEAT_TIMEOUT_MS=10000: without probe heartbeats, every attempt would time out.
    const src = await source({ total: 250, delayMs: (r) => (r.pageSize === 1 ? 20_000 : 0) });
    const taskId = await submit(slow, slowKey, src.url);
    const task = await slow.waitForTask(taskId, slowKey, undefined, 50_000);
    expect(task.status).toBe('succeeded');
    expect(task.progress).toMatchObject({ total_rows: 250, fetched_rows: 250 });
    // the probe was asked once, and answered after 20 s: no attempt timed out and was retried
    expect(src.requests.filter((r) => r.pageSize === 1)).toHaveLength(1);
    expect(src.aborted).toHaveLength(0);
  }, 60_000);

  it('sends a signed query string unchanged, adding only page and page_size (replacing page=9)', async () => {
    const query = "?month=2026-11&q=a%20b&plus=a+b&t=~me&flag&page=9&quote='x'&sig=Zm9v%2Bbar%3D";
    const src = await source({ total: 250 });
    const taskId = await submit(slow, slowKey, `${src.url}${query}`);
    const task = await slow.waitForTask(taskId, slowKey);
    expect(task.status).toBe('succeeded');
    const kept = "/export?month=2026-11&q=a%20b&plus=a+b&t=~me&flag&quote='x'&sig=Zm9v%2Bbar%3D";
    expect(src.requests.map((r) => r.rawUrl)).toEqual([
      `${kept}&page=0&page_size=1`,
      `${kept}&page=0&page_size=100`,
      `${kept}&page=1&page_size=100`,
      `${kept}&page=2&page_size=100`,
    ]);
  });

  it('fails a body trickling one byte a second within the deadline and the retry budget, naming the deadline', async () => {
    // Page 1 trickles: each attempt is cut at 3 s (the 2 s idle limit never fires); two attempts.
    const src = await source({ total: 300, trickle: (r) => (r.pageSize === 100 && r.page === 1 ? { bytes: 1, intervalMs: 1000 } : undefined) });
    const taskId = await submit(strict, strictKey, src.url);
    const task = await strict.waitForTask(taskId, strictKey, undefined, 30_000);
    const attempts = src.requests.filter((r) => r.pageSize === 100 && r.page === 1);
    const failedAfter = new Date(task.finished_at).getTime() - attempts[0]!.at;
    expect(task.status).toBe('failed');
    expect(task.error).toEqual({
      code: 'source_unreachable',
      message: 'source did not finish answering page 1 (page_size 100) within 3000 ms (SOURCE_REQUEST_DEADLINE_MS)',
    });
    expect(attempts).toHaveLength(2);
    // two attempts of 3 s each and a short backoff: well within 12 s, not hours
    expect(failedAfter).toBeGreaterThanOrEqual(2 * 3000 - 100);
    expect(failedAfter).toBeLessThan(12_000);
  });
});
