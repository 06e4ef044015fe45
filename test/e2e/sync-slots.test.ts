// A synchronous export holds its slots until its run ends, not until its caller leaves: requests
// abandoned against a slow source never run more exports at once than the API's sync slots or the
// project's max_running_tasks allow.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  env = await startTestEnv({ SYNC_MAX_ROWS: '1000', SYNC_SLOTS: '2', SYNC_TIMEOUT_MS: '1000' });
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

/** A sync request its caller gives up on after `leaveAfterMs`. */
async function abandoned(key: string, url: string, leaveAfterMs: number): Promise<void> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), leaveAfterMs);
  await fetch(`${env.base}/v1/tasks/sync`, {
    method: 'POST',
    signal: ac.signal,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source_url: url, operator_id: 'op-leaves', page_size: 100 }),
  }).catch(() => undefined);
  clearTimeout(timer);
}

async function sync(key: string, url: string) {
  const res = await fetch(`${env.base}/v1/tasks/sync`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source_url: url, operator_id: 'op-waits', page_size: 100 }),
  });
  return { status: res.status, fallback: res.headers.get('x-sync-fallback'), body: Buffer.from(await res.arrayBuffer()) };
}

it("keeps the API's sync slots taken while the runs of timed-out requests go on", async () => {
  const { api_key: key } = await env.createProject({ max_running_tasks: 10 });
  // 6 pages at 400 ms each: the runs outlive SYNC_TIMEOUT_MS (1 s) by more than a second.
  const slow = await source({ total: 600, delayMs: (r) => (r.pageSize === 1 ? 0 : 400) });
  const fast = await source({ total: 100 });
  const timedOut = await Promise.all([sync(key, slow.url), sync(key, `${slow.url}?b=1`)]);
  expect(timedOut.map((r) => r.fallback)).toEqual(['timeout', 'timeout']);
  const third = await sync(key, fast.url);
  expect(third.fallback).toBe('no_free_slot');
  expect(third.status).toBe(202);
  // Once those runs end, their slots are free again: a sync answer with the file.
  await expect.poll(async () => (await sync(key, `${fast.url}?d=1`)).status, { timeout: 20_000, interval: 500 }).toBe(200);
});

it("never runs more sync exports at once than the project's max_running_tasks", async () => {
  const { api_key: key } = await env.createProject({ max_running_tasks: 1 });
  const slow = await source({ total: 500, delayMs: (r) => (r.pageSize === 1 ? 0 : 400) });
  await abandoned(key, slow.url, 300);
  const second = await sync(key, `${slow.url}?b=1`);
  expect(second.status).toBe(202);
  expect(second.fallback).toBe('no_free_slot');
  const task = JSON.parse(second.body.toString('utf8'));
  expect(task.status).toBe('queued');
  // Both end, one after the other: never two requests of the source's in flight.
  await env.waitForTask(task.task_id, key, (t) => t.status === 'succeeded', 30_000);
  expect(slow.maxInFlight()).toBe(1);
});
