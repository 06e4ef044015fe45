// Politeness towards a project's source: a cap on concurrent requests across all of the project's
// tasks, lanes and workers (two worker processes here), and an optional requests-per-second limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchHolders } from '../support/crash.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type SourceServer, sourcePool } from '../support/source-server.js';
import { startWorkerProcess, type WorkerProcess, workerEnv } from '../support/worker-process.js';

let env: TestEnv;
let other: WorkerProcess | undefined;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  // Three activities per worker: neither can take all ten lanes of the two exports below, so both
  // worker processes fetch, whatever the scheduling.
  env = await startTestEnv({ WORKER_MAX_ACTIVITIES: '3' });
  // A second worker, in its own process, on the same task queue: the cap must hold across both.
  other = await startWorkerProcess(workerEnv(env.config, { WORKER_MAX_ACTIVITIES: '3' }));
});

afterAll(async () => {
  await other?.kill();
  await closeSources();
  await env?.close();
});

async function submit(key: string, src: SourceServer, fileName: string, pageSize = 100) {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', page_size: pageSize, file_name: fileName } });
  expect(res.status).toBe(202);
  return res.json.task_id as string;
}

describe('project settings', () => {
  it('accepts source_max_concurrency and source_rps, with defaults', async () => {
    const created = await env.createProject({ source_max_concurrency: 3, source_rps: 12.5 });
    expect(created).toMatchObject({ source_max_concurrency: 3, source_rps: 12.5 });
    const got = await env.api('GET', `/v1/projects/${created.project_id}`, { token: ADMIN });
    expect(got.json).toMatchObject({ source_max_concurrency: 3, source_rps: 12.5 });
    expect(await env.createProject()).toMatchObject({ source_max_concurrency: 8, source_rps: null });
  });

  it.each([
    [{ source_max_concurrency: 0 }, 'source_max_concurrency'],
    [{ source_max_concurrency: 2.5 }, 'source_max_concurrency'],
    [{ source_rps: -1 }, 'source_rps'],
    [{ source_rps: 'fast' }, 'source_rps'],
  ])('refuses %j with 422 naming the field', async (bad, field) => {
    const res = await env.api('POST', '/v1/projects', { token: ADMIN, body: { name: 'x', source_hosts: ['127.0.0.1'], ...bad } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.json.error.details)).toContain(field);
  });
});

describe('the source is spared', () => {
  it('never has more than source_max_concurrency requests in flight, across tasks, lanes and workers', async () => {
    const { api_key: key } = await env.createProject({ source_max_concurrency: 3, max_running_tasks: 4 });
    // 500 pages each: two tasks of 5 lanes would put 10 requests in flight without the cap.
    const src = await source({ total: 50_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 15) });
    const ids = [await submit(key, src, 'a'), await submit(key, src, 'b')];
    const holders = new Set<string>();
    const watch = setInterval(() => {
      for (const id of ids) void fetchHolders(env.temporal, id).then((h) => h.forEach((x) => holders.add(x.split('@')[0]!)), () => {});
    }, 200);
    try {
      for (const id of ids) expect((await env.waitForTask(id, key, undefined, 120_000)).status).toBe('succeeded');
    } finally {
      clearInterval(watch);
    }
    expect(src.maxInFlight()).toBe(3);
    // both processes fetched pages of these exports
    expect(holders).toContain(String(other!.pid));
    expect(holders).toContain(String(process.pid));
  }, 150_000);

  it('keeps to source_rps', async () => {
    const { api_key: key } = await env.createProject({ source_max_concurrency: 4, source_rps: 20 });
    const src = await source({ total: 6000 });
    const task = await env.waitForTask(await submit(key, src, 'rps'), key, undefined, 60_000);
    expect(task.status).toBe('succeeded');
    const times = src.requests.map((r) => r.at);
    expect(times).toHaveLength(61);
    // 61 requests at 20 a second with a burst of at most 4: no less than (61 - 4) / 20 s
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(2700);
    for (const t of times) expect(times.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(24);
  });
});
