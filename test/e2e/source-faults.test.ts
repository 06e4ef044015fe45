// A source request under faults: a cancel or a pause reaches a trickling request within about a
// second (the source sees its connection closed), a stalled body fails at the minimum rate rather
// than at the deadline, and a pause keeps every page that had arrived.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { type SourceServer, sourcePool } from '../support/source-server.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  // A body slower than 1000 bytes/s over any second has stalled.
  env = await startTestEnv({ SOURCE_MIN_BYTES_PER_SECOND: '1000', SOURCE_RATE_WINDOW_MS: '1000' });
  ({ api_key: key } = await env.createProject({ max_running_tasks: 10, source_retry_max_attempts: 2, source_retry_max_interval_seconds: 1 }));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

async function submit(src: SourceServer, pageSize: number): Promise<string> {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', page_size: pageSize } });
  expect(res.status).toBe(202);
  return res.json.task_id as string;
}

const workflowStatus = async (taskId: string) => (await env.temporal.workflow.getHandle(taskId).describe()).status.name;

/** 30 pages of 1000 rows; page 10's ~70 kB body comes 200 bytes every 100 ms (above the minimum rate, for ~35 s). */
async function tricklingAtPage10(): Promise<SourceServer> {
  const src = await source({ total: 30_000, trickle: (r) => (r.page === 10 && r.pageSize === 1000 ? { bytes: 200, intervalMs: 100 } : undefined) });
  return src;
}

/** Waits until page 10 has been trickling a while (the request is in its body). */
async function page10Trickling(src: SourceServer): Promise<void> {
  await expect.poll(() => src.requests.some((r) => r.page === 10 && r.pageSize === 1000), { timeout: 20_000 }).toBe(true);
  await new Promise((r) => setTimeout(r, 1500));
  expect(src.aborted).toEqual([]);
}

describe('a trickling source request', () => {
  it('is closed within ~2 s of a cancel, and the task ends cancelled promptly', async () => {
    const src = await tricklingAtPage10();
    const taskId = await submit(src, 1000);
    await page10Trickling(src);
    const t0 = Date.now();
    const res = await env.api('POST', `/v1/tasks/${taskId}/cancel`, { token: key });
    expect(res.status).toBe(202);
    await expect.poll(() => src.aborted.length, { timeout: 5000, interval: 20 }).toBe(1);
    expect(src.aborted[0]!.page).toBe(10);
    expect(src.aborted[0]!.at - t0).toBeLessThan(2000);
    await expect.poll(() => workflowStatus(taskId), { timeout: 3000, interval: 100 }).toBe('CANCELLED');
  });

  it('is closed within ~2 s of a pause, which then answers', async () => {
    const src = await tricklingAtPage10();
    const taskId = await submit(src, 1000);
    await page10Trickling(src);
    const t0 = Date.now();
    const res = await env.api('POST', `/v1/tasks/${taskId}/pause`, { token: key });
    expect(res.status).toBe(202);
    expect(res.json.status).toBe('paused');
    expect(src.aborted.map((r) => r.page)).toEqual([10]);
    expect(src.aborted[0]!.at - t0).toBeLessThan(2000);
    expect(Date.now() - t0).toBeLessThan(4000);
    await env.api('POST', `/v1/tasks/${taskId}/cancel`, { token: key });
  });

  it('fails early when its body stalls below the minimum rate, not at the deadline', async () => {
    // 10 bytes every 200 ms: never idle for SOURCE_TIMEOUT_MS, far below 1000 bytes/s.
    const src = await source({ total: 300, trickle: (r) => (r.page === 1 && r.pageSize === 100 ? { bytes: 10, intervalMs: 200 } : undefined) });
    const started = Date.now();
    const task = await env.waitForTask(await submit(src, 100), key, undefined, 30_000);
    expect(task.status).toBe('failed');
    expect(task.error.code).toBe('source_unreachable');
    expect(task.error.message).toContain('SOURCE_MIN_BYTES_PER_SECOND');
    // two attempts of about a second each, and the retry's wait
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(src.requests.filter((r) => r.page === 1 && r.pageSize === 100)).toHaveLength(2);
  });
});

describe('a pause', () => {
  it('keeps every page that had arrived: across pause and resume no page is asked twice', async () => {
    // 200 pages in two lanes, 100 ms each: a lane holds pages in memory between stored pieces.
    const src = await source({ total: 20_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 100) });
    const taskId = await submit(src, 100);
    await env.waitForTask(taskId, key, (t) => t.progress.percent >= 30, 30_000);
    const paused = await env.api('POST', `/v1/tasks/${taskId}/pause`, { token: key });
    expect(paused.json.status).toBe('paused');
    const resumed = await env.api('POST', `/v1/tasks/${taskId}/resume`, { token: key });
    expect(resumed.status).toBe(202);
    const done = await env.waitForTask(taskId, key, undefined, 60_000);
    expect(done).toMatchObject({ status: 'succeeded', progress: { fetched_rows: 20_000 } });
    const counts = src.pageCounts();
    expect(counts.size).toBe(200);
    const twice = [...counts].filter(([, n]) => n > 1).map(([page]) => page);
    expect(twice, 'pages asked again after the resume').toEqual([]);
  });
});
