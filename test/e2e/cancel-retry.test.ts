import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourcePool } from '../support/source-server.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { type Client, connect } from '../support/ws-client.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();
const clients: Client[] = [];

beforeAll(async () => {
  env = await startTestEnv();
  ({ api_key: key } = await env.createProject({ source_hosts: ['127.0.0.1'], max_running_tasks: 1 }));
});

afterAll(async () => {
  for (const c of clients) c.close();
  await closeSources();
  await env?.close();
});


async function submit(body: Record<string, unknown>) {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-c', page_size: 100, ...body } });
  expect(res.status).toBe(202);
  return res.json.task_id as string;
}

const staged = (taskId: string) => env.core.storage.list(`staging/${taskId}`);
const workflowStatus = async (taskId: string) => (await env.temporal.workflow.getHandle(taskId).describe()).status.name;

describe('cancel', () => {
  it('stops in-flight fetches promptly, removes staged data and pushes task.cancelled; retry then finishes it', async () => {
    let hang = true;
    // Pages 0–9 come at once; page 10 hangs until the fetch is cancelled.
    const src = await source({ total: 3000, delayMs: (r) => (hang && r.page === 10 && r.pageSize === 100 ? 60_000 : 0) });
    const taskId = await submit({ source_url: src.url });
    const ws = await connect(env.base, { token: key });
    clients.push(ws);
    ws.send({ subscribe: taskId });
    await expect.poll(() => src.requests.some((r) => r.page === 10 && r.pageSize === 100), { timeout: 15_000 }).toBe(true);
    expect((await staged(taskId)).length).toBeGreaterThan(0);

    const t0 = Date.now();
    const res = await env.api('POST', `/v1/tasks/${taskId}/cancel`, { token: key });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ task_id: taskId, status: 'cancelled', files: [] });
    // the page fetch in flight is aborted (its connection closes) within a few seconds
    await expect.poll(() => src.aborted.length, { timeout: 5000, interval: 50 }).toBe(1);
    const abortMs = src.aborted[0]!.at - t0;
    expect(abortMs).toBeLessThan(4000);
    await expect.poll(() => workflowStatus(taskId), { timeout: 10_000 }).toBe('CANCELLED');
    expect(await staged(taskId)).toEqual([]);
    expect(await env.core.storage.list(`files/${taskId}`)).toEqual([]);
    const pushed = await ws.next((m) => m.task?.task_id === taskId && m.event === 'task.cancelled');
    expect(pushed.task.status).toBe('cancelled');
    const after = await env.api('GET', `/v1/tasks/${taskId}`, { token: key });
    expect(after.json).toMatchObject({ status: 'cancelled', stage: null, files: [] });
    console.log(`[measure] cancel → in-flight page fetch aborted after ${abortMs} ms`);

    const again = await env.api('POST', `/v1/tasks/${taskId}/cancel`, { token: key });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('task_finished');

    // a cancelled task runs again under the same id
    hang = false;
    const retry = await env.api('POST', `/v1/tasks/${taskId}/retry`, { token: key });
    expect(retry.status).toBe(202);
    expect(retry.json).toMatchObject({ task_id: taskId, status: 'queued', runs: 2, progress: { fetched_rows: 0, percent: 0 } });
    const done = await env.waitForTask(taskId, key);
    expect(done).toMatchObject({ status: 'succeeded', runs: 2, files: [{ rows: 3000 }] });
    await ws.next((m) => m.task?.task_id === taskId && m.event === 'task.succeeded');
  });

  it('cancels a queued task before it starts', async () => {
    const src = await source({ total: 500, delayMs: (r) => (r.pageSize === 1 ? 0 : 200) });
    const running = await submit({ source_url: src.url });
    await env.waitForTask(running, key, (t) => t.status === 'running');
    // max_running_tasks is 1: this one waits for a slot
    const queued = await submit({ source_url: `${src.url}?second=1` });
    const res = await env.api('POST', `/v1/tasks/${queued}/cancel`, { token: key });
    expect(res.status).toBe(202);
    expect(res.json.status).toBe('cancelled');
    expect((await env.waitForTask(running, key)).status).toBe('succeeded');
    // A waiting task has no run (admission starts runs only for admitted tasks), and the slot
    // freed by the first one must not start the cancelled one.
    await expect(env.temporal.workflow.getHandle(queued).describe()).rejects.toThrow(/not found/i);
    const later = await env.api('GET', `/v1/tasks/${queued}`, { token: key });
    expect(later.json).toMatchObject({ status: 'cancelled', started_at: null });
  });

  it('answers 404 for another project and for an unknown task', async () => {
    const other = await env.createProject({ name: 'other' });
    const src = await source({ total: 10 });
    const taskId = await submit({ source_url: src.url });
    for (const path of [`/v1/tasks/${taskId}/cancel`, `/v1/tasks/${taskId}/retry`]) {
      expect((await env.api('POST', path, { token: other.api_key })).status).toBe(404);
    }
    expect((await env.api('POST', '/v1/tasks/tsk_nope/cancel', { token: key })).status).toBe(404);
    await env.waitForTask(taskId, key);
  });
});

describe('retry', () => {
  it('re-runs a failed task under the same task_id once the source is healthy', async () => {
    let healthy = false;
    const src = await source({ total: 450, intercept: (r) => (!healthy && r.page === 2 ? { status: 404, body: '{}' } : undefined) });
    const taskId = await submit({ source_url: src.url });
    const failed = await env.waitForTask(taskId, key);
    expect(failed).toMatchObject({ status: 'failed', runs: 1, error: { code: 'source_bad_response' } });

    healthy = true;
    const res = await env.api('POST', `/v1/tasks/${taskId}/retry`, { token: key });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ task_id: taskId, status: 'queued', runs: 2, error: null, finished_at: null });
    const done = await env.waitForTask(taskId, key);
    expect(done).toMatchObject({ status: 'succeeded', runs: 2, error: null, progress: { fetched_rows: 450, percent: 100 } });
    const csv = await (await fetch(done.files[0].url)).text();
    expect(csv.split('\r\n').filter(Boolean)).toHaveLength(451);

    // only failed or cancelled tasks can be retried
    const twice = await env.api('POST', `/v1/tasks/${taskId}/retry`, { token: key });
    expect(twice.status).toBe(409);
    expect(twice.json.error.code).toBe('task_not_retryable');
    const cancelDone = await env.api('POST', `/v1/tasks/${taskId}/cancel`, { token: key });
    expect(cancelDone.status).toBe(409);
  });
});
