// Runs as an outside audit tried them. The project's source_hosts as they are now decide every
// contact with a source, not the list at submission: a retry or a resume of a task whose host an
// admin removed answers 422 source_host_not_allowed, and a queued task admitted after the removal
// fails with that code without asking the source. A name long in bytes exports like any other.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  env = await startTestEnv();
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

const setHosts = async (projectId: string, hosts: string[]) => {
  const res = await env.api('PATCH', `/v1/projects/${projectId}`, { token: ADMIN, body: { source_hosts: hosts } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
};

it('refuses to retry a failed task whose source host was removed, and asks the source nothing', async () => {
  const src = await source({ total: 30, intercept: (r) => (r.pageSize !== 1 ? { status: 400, body: '{"error":"no"}' } : undefined) });
  const { project_id, api_key } = await env.createProject({ source_hosts: [src.host, '127.0.0.1:1'] });
  const sub = await env.api('POST', '/v1/tasks', { token: api_key, body: { source_url: src.url, operator_id: 'op', page_size: 100 } });
  expect(sub.status).toBe(202);
  expect((await env.waitForTask(sub.json.task_id, api_key)).status).toBe('failed');
  await setHosts(project_id, ['127.0.0.1:1']);
  const asked = src.requests.length;
  const retry = await env.api('POST', `/v1/tasks/${sub.json.task_id}/retry`, { token: api_key });
  expect(retry.status, JSON.stringify(retry.json)).toBe(422);
  expect(retry.json.error).toMatchObject({ code: 'source_host_not_allowed', request_id: expect.any(String) });
  expect(src.requests.length).toBe(asked);
});

it('refuses to resume a paused task, and fails a queued task admitted after the removal', async () => {
  const slow = await source({ total: 2000, delayMs: () => 200 });
  const other = await source({ total: 30 });
  const { project_id, api_key } = await env.createProject({ source_hosts: [slow.host, other.host], max_running_tasks: 1 });
  const submit = (url: string) => env.api('POST', '/v1/tasks', { token: api_key, body: { source_url: url, operator_id: 'op', page_size: 100 } });
  const blocker = await submit(slow.url);
  await env.waitForTask(blocker.json.task_id, api_key, (t) => t.status === 'running');
  const waiting = await submit(other.url);
  const paused = await submit(`${other.url}?second=1`);
  expect((await env.api('POST', `/v1/tasks/${paused.json.task_id}/pause`, { token: api_key })).json.status).toBe('paused');

  await setHosts(project_id, [slow.host]);
  const resume = await env.api('POST', `/v1/tasks/${paused.json.task_id}/resume`, { token: api_key });
  expect(resume.status, JSON.stringify(resume.json)).toBe(422);
  expect(resume.json.error.code).toBe('source_host_not_allowed');

  expect((await env.api('POST', `/v1/tasks/${blocker.json.task_id}/cancel`, { token: api_key })).status).toBe(202);
  const late = await env.waitForTask(waiting.json.task_id, api_key);
  expect(late.status).toBe('failed');
  expect(late.error.code).toBe('source_host_not_allowed');
  expect(other.requests.length).toBe(0);
});

it('exports under a name of 100 CJK characters, split into parts and zipped, the name only on the download', async () => {
  const src = await source({ total: 300 });
  const { api_key } = await env.createProject({ source_hosts: [src.host] });
  const name = '订'.repeat(100);
  const sub = await env.api('POST', '/v1/tasks', { token: api_key, body: { source_url: src.url, operator_id: 'op', page_size: 100, file_name: name, max_file_rows: 100 } });
  expect(sub.status, JSON.stringify(sub.json)).toBe(202);
  const task = await env.waitForTask(sub.json.task_id, api_key);
  expect(task.status, JSON.stringify(task.error)).toBe('succeeded');
  const kept = '订'.repeat(80);
  expect(task.files.map((f: any) => f.name)).toEqual([1, 2, 3].map((n) => `${kept}-part-${n}.csv`).concat(`${kept}.zip`));
  const first = await fetch(task.files[0].url);
  expect(first.headers.get('content-disposition')).toContain(encodeURIComponent(`${kept}-part-1.csv`));
  const rows = parse(Buffer.from(await first.arrayBuffer()).toString('utf8').slice(1)) as string[][];
  expect(rows.length).toBe(101);
});
