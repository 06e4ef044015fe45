// A project's own source retries (source_retry_max_attempts, source_retry_max_interval_seconds,
// source_retry_backoff): accepted and shown by the API, and followed by its exports' requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type SourceServer, sourcePool } from '../support/source-server.js';

let env: TestEnv;
const { source, closeSources } = sourcePool();

const pageRequests = (src: SourceServer, page: number) => src.requests.filter((r) => r.pageSize !== 1 && r.page === page);
const gaps = (reqs: { at: number }[]) => reqs.slice(1).map((r, i) => r.at - reqs[i]!.at);

async function run(key: string, src: SourceServer) {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', page_size: 100 } });
  expect(res.status).toBe(202);
  return env.waitForTask(res.json.task_id, key, undefined, 60_000);
}

/** A source whose `page` answers 503 its first `fails` times. */
const failing = (page: number, fails: number) =>
  source({ total: 300, intercept: (r) => (r.pageSize !== 1 && r.page === page && pageRequests(src, page).length <= fails ? { status: 503, body: 'down' } : undefined) }).then((s) => (src = s));
let src: SourceServer;

beforeAll(async () => {
  // A growing backoff starts at 300 ms here: a uniform schedule of 2 s cannot be mistaken for it.
  env = await startTestEnv({ SOURCE_RETRY_INITIAL_MS: '300' });
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

describe('per-project source retries', () => {
  it('are accepted at creation and by PATCH, shown in the project, and checked', async () => {
    const created = await env.createProject();
    const shown = await env.api('GET', `/v1/projects/${created.project_id}`, { token: ADMIN });
    expect(shown.json).toMatchObject({ source_retry_max_attempts: 5, source_retry_max_interval_seconds: 60, source_retry_backoff: 'exponential' });
    const patched = await env.api('PATCH', `/v1/projects/${created.project_id}`, { token: ADMIN, body: { source_retry_max_attempts: 20, source_retry_backoff: 'uniform' } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ source_retry_max_attempts: 20, source_retry_max_interval_seconds: 60, source_retry_backoff: 'uniform' });
    for (const bad of [{ source_retry_max_attempts: 21 }, { source_retry_max_attempts: 0 }, { source_retry_max_interval_seconds: 3601 }, { source_retry_backoff: 'linear' }]) {
      const res = await env.api('POST', '/v1/projects', { token: ADMIN, body: { name: 'x', source_hosts: ['127.0.0.1'], ...bad } });
      expect(res.status, JSON.stringify(bad)).toBe(422);
    }
  });

  // Page 0 fails before anything is stored (Temporal's retry policy); page 1 after page 0 was
  // stored (the workflow's own retry of the rest of the chunk): both spend the project's budget.
  it.each([0, 1])('fails the task after exactly the project’s 2 attempts at page %i', async (page) => {
    const { api_key: key } = await env.createProject({ source_retry_max_attempts: 2, source_retry_max_interval_seconds: 1 });
    await failing(page, 3);
    const task = await run(key, src);
    expect(task.status).toBe('failed');
    expect(task.error.code).toBe('source_unreachable');
    expect(pageRequests(src, page)).toHaveLength(2);
  });

  it.each([0, 1])('waits equal intervals with a uniform backoff (page %i)', async (page) => {
    const { api_key: key } = await env.createProject({ source_retry_max_attempts: 4, source_retry_max_interval_seconds: 2, source_retry_backoff: 'uniform' });
    await failing(page, 3);
    const task = await run(key, src);
    expect(task.status).toBe('succeeded');
    const g = gaps(pageRequests(src, page));
    expect(g).toHaveLength(3);
    // 2 s each (the dev server may fire a timer up to a second late); a growing schedule from
    // 300 ms would give 300, 600, 1200 ms.
    for (const gap of g) expect(gap).toBeGreaterThanOrEqual(1900);
    for (const gap of g) expect(gap).toBeLessThan(3500);
  });
});
