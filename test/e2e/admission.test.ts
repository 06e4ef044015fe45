// Admission (docs/adr/0012-admission-queue.md): the queue's order, how fast a freed slot is used, what waiting costs,
// fairness between projects, and pause/resume.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { defaultRow, sourcePool } from '../support/source-server.js';
import { connect } from '../support/ws-client.js';

let env: TestEnv;
const { source, closeSources } = sourcePool();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  env = await startTestEnv();
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

async function submit(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-q', page_size: 100, ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json.task_id;
}

const hasRun = async (taskId: string) =>
  env.temporal.workflow
    .getHandle(taskId)
    .describe()
    .then(() => true)
    .catch((err: Error) => (/not found/i.test(err.message) ? false : Promise.reject(err)));

it('starts waiting tasks by priority then submission, each within 1 s of a freed slot; a waiting task has no run', async () => {
  const { api_key: key } = await env.createProject({ max_running_tasks: 1 });
  // The blocker holds the only slot for about 30 s (three pages of 10 s).
  const slow = await source({ total: 300, delayMs: (r) => (r.pageSize === 1 ? 0 : 10_000) });
  const blocker = await submit(key, { source_url: slow.url });
  await env.waitForTask(blocker, key, (t) => t.status === 'running');
  const fast = await source({ total: 50 });
  const priorities = [3, 3, 1, 5, 1, 3];
  const ids: string[] = [];
  for (const [i, priority] of priorities.entries()) ids.push(await submit(key, { source_url: `${fast.url}?n=${i}`, priority }));
  // While they wait (about 30 s) none has a workflow run: no history, no timer, no poll.
  const waitStarted = Date.now();
  for (const at of [500, 14_000, 26_000]) {
    await sleep(Math.max(0, waitStarted + at - Date.now()));
    for (const id of ids) expect(await hasRun(id), `task ${id} has a run while it waits`).toBe(false);
  }
  const done = await Promise.all(ids.map((id) => env.waitForTask(id, key, undefined, 90_000)));
  const first = await env.waitForTask(blocker, key);
  expect([first, ...done].map((t) => t.status)).toEqual(Array(7).fill('succeeded'));
  const byStart = [...done].sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
  expect(byStart.map((t) => t.priority)).toEqual([1, 1, 3, 3, 3, 5]);
  expect(byStart.map((t) => ids.indexOf(t.task_id))).toEqual([2, 4, 0, 1, 5, 3]);
  // Each start follows the previous task's end within a second.
  let previous = first;
  for (const t of byStart) {
    const gap = Date.parse(t.started_at) - Date.parse(previous.finished_at);
    expect(gap, `${t.task_id} started ${gap} ms after the slot was freed`).toBeLessThan(1000);
    expect(gap).toBeGreaterThanOrEqual(0);
    previous = t;
  }
}, 120_000);

it("does not delay one project's export behind another project's 300 queued exports", async () => {
  const b = await env.createProject({ name: 'b' });
  const small = await source({ total: 500 });
  const alone = Date.now();
  await env.waitForTask(await submit(b.api_key, { source_url: `${small.url}?run=alone` }), b.api_key);
  const baseline = Date.now() - alone;

  const a = await env.createProject({ name: 'a', max_running_tasks: 2, submit_per_minute: 1000 });
  const busy = await source({ total: 200, delayMs: (r) => (r.pageSize === 1 ? 0 : 500) });
  for (let i = 0; i < 300; i += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, j) => submit(a.api_key, { source_url: `${busy.url}?n=${i + j}` })));
  }
  const loaded = Date.now();
  const t = await env.waitForTask(await submit(b.api_key, { source_url: `${small.url}?run=loaded` }), b.api_key);
  const underLoad = Date.now() - loaded;
  expect(t.status).toBe('succeeded');
  expect(underLoad, `alone ${baseline} ms, behind 300 queued ${underLoad} ms`).toBeLessThan(Math.max(3 * baseline, baseline + 2000));
  const counts = (await env.api('GET', '/v1/tasks/counts', { token: a.api_key })).json.counts;
  expect(counts.queued).toBeGreaterThan(250);
  expect(counts.running).toBeLessThanOrEqual(2);
}, 120_000);

it('pauses a running export at 30 %, frees its slot, and resumes it to exactly the source rows', async () => {
  const { api_key: key } = await env.createProject({ max_running_tasks: 1 });
  const src = await source({ total: 20_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 15) });
  const id = await submit(key, { source_url: src.url });
  const ws = await connect(env.base, { token: key });
  ws.send({ subscribe: id });
  await env.waitForTask(id, key, (t) => t.progress.percent >= 30);

  const paused = await env.api('POST', `/v1/tasks/${id}/pause`, { token: key });
  expect(paused.status).toBe(202);
  expect(paused.json).toMatchObject({ status: 'paused', stage: null });
  expect(paused.json.progress.percent).toBeGreaterThanOrEqual(30);
  expect(paused.json.progress.percent).toBeLessThan(100);
  await ws.next((m) => m.event === 'task.paused' && m.task.task_id === id);
  const again = await env.api('POST', `/v1/tasks/${id}/pause`, { token: key });
  expect([again.status, again.json.error.code]).toEqual([409, 'task_not_pausable']);
  const requestsAtPause = src.requests.length;
  await sleep(500);
  expect(src.requests.length, 'a paused export keeps fetching').toBe(requestsAtPause);

  // Its slot is free: another task of the project runs to the end meanwhile.
  const other = await submit(key, { source_url: (await source({ total: 30 })).url });
  expect((await env.waitForTask(other, key)).status).toBe('succeeded');
  expect((await env.api('POST', `/v1/tasks/${other}/resume`, { token: key })).json.error.code).toBe('task_not_paused');

  const resumed = await env.api('POST', `/v1/tasks/${id}/resume`, { token: key });
  expect(resumed.status).toBe(202);
  expect(['queued', 'running']).toContain(resumed.json.status);
  await ws.next((m) => m.event === 'task.resumed' && m.task.task_id === id);
  const done = await env.waitForTask(id, key);
  expect(done).toMatchObject({ status: 'succeeded', progress: { fetched_rows: 20_000, percent: 100 } });
  ws.close();

  const csv = Buffer.from(await (await fetch(done.files[0].url)).arrayBuffer()).toString('utf8');
  const rows = parse(csv.replace(/^\ufeff/, ''), { columns: true }) as Array<Record<string, string>>;
  expect(rows).toHaveLength(20_000);
  rows.forEach((r, i) => expect(r, `row ${i}`).toEqual(Object.fromEntries(Object.entries(defaultRow(i)).map(([k, v]) => [k, String(v)]))));
  // Pages stored before the pause were not fetched again (only the few waiting in memory were).
  const refetched = [...src.pageCounts().values()].filter((n) => n > 1).length;
  expect(refetched).toBeLessThan(30);
}, 120_000);
