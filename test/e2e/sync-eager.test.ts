// POST /v1/tasks/sync as the embedded start serves it: the API's client shares the worker's
// NativeConnection, so the sync run starts eagerly on this worker (test/e2e/sync-export.test.ts
// covers the API alone, through the task queue). The task is still an ordinary one: listed,
// failing with its code, its callback delivered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourcePool } from '../support/source-server.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type Receiver, startReceiver } from '../support/receiver.js';

let env: TestEnv;
let project: { api_key: string; webhook_secret: string };
let hook: Receiver;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  env = await startTestEnv({ SYNC_MAX_ROWS: '500' }, { eager: true });
  project = await env.createProject({ source_hosts: ['127.0.0.1'], callback_hosts: ['127.0.0.1'] });
  hook = await startReceiver(project.webhook_secret);
});

afterAll(async () => {
  await hook?.close();
  await closeSources();
  await env?.close();
});

const sync = (body: Record<string, unknown>) =>
  fetch(`${env.base}/v1/tasks/sync`, {
    method: 'POST',
    headers: { authorization: `Bearer ${project.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ operator_id: 'op-eager', page_size: 100, ...body }),
  });

describe('POST /v1/tasks/sync on a worker sharing the API connection', () => {
  it('starts the run eagerly, answers the file, and the task is listed and notified', async () => {
    const src = await source({ total: 250 });
    const res = await sync({ source_url: src.url, callback: `${hook.url}/done` });
    expect(res.status).toBe(200);
    expect(res.headers.get('server-timing')).toMatch(/start;dur=[0-9.]+;desc="eager"/);
    expect((await res.text()).split('\r\n').filter(Boolean)).toHaveLength(251);
    const taskId = res.headers.get('x-task-id')!;
    const listed = await env.api('GET', '/v1/tasks?operator_id=op-eager', { token: project.api_key });
    expect(listed.json.items.find((t: any) => t.task_id === taskId)).toMatchObject({ status: 'succeeded', files: [{ rows: 250 }] });
    const [delivery] = await hook.waitFor(1);
    expect(delivery!.payload).toMatchObject({ event: 'task.succeeded', task: { task_id: taskId, status: 'succeeded' } });
    const handle = env.temporal.workflow.getHandle(taskId);
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    expect((await handle.describe()).type).toBe('syncExportWorkflow');
  });

  it('answers a source that fails for good with its code, and the task is failed', async () => {
    const src = await source({ total: 50, intercept: (r) => (r.pageSize > 1 ? { status: 400, body: '{}' } : undefined) });
    const res = await sync({ source_url: src.url });
    expect(res.status).toBe(502);
    const body: any = await res.json();
    expect(body.error.code).toBe('source_bad_response');
    const taskId = /task (tsk_\w+)/.exec(body.error.message)![1]!;
    const task = await env.api('GET', `/v1/tasks/${taskId}`, { token: project.api_key });
    expect(task.json).toMatchObject({ status: 'failed', error: { code: 'source_bad_response' }, files: [] });
  });

  it('degrades to 202 over the sync limit, and the export runs to the end', async () => {
    const src = await source({ total: 700 });
    const res = await sync({ source_url: src.url });
    expect(res.status).toBe(202);
    expect(res.headers.get('x-sync-fallback')).toBe('over_row_limit');
    const body: any = await res.json();
    const task = await env.waitForTask(body.task_id, project.api_key);
    expect(task).toMatchObject({ status: 'succeeded', files: [{ rows: 700 }] });
  });

  it('starts an ordinary submission\'s run eagerly too, and it runs to the end', async () => {
    const src = await source({ total: 120 });
    const res = await env.api('POST', '/v1/tasks', { token: project.api_key, body: { operator_id: 'op-eager', page_size: 100, source_url: src.url } });
    expect(res.status).toBe(202);
    const done = await env.waitForTask(res.json.task_id as string, project.api_key);
    expect(done).toMatchObject({ status: 'succeeded', progress: { total_rows: 120 } });
    // Started after the answer (domain/tasks/admission/starter.ts), on this process's worker.
    const metrics = await (await fetch(`${env.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    expect(metrics).toMatch(/^dc_run_starts_total\{how="eager"\} [1-9]/m);
  });
});
