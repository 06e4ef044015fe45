import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projects } from '../../db/schema.js';
import { newWebhookSecret } from '../../domain/callbacks/webhooks.js';
import { type Answer, type Receiver, startReceiver } from '../support/receiver.js';
import { type SourceServer, startSource } from '../support/source-server.js';
import { startTestEnv, type TestEnv } from '../support/env.js';

let env: TestEnv;
let project: { project_id: string; api_key: string; webhook_secret: string };
const servers: Array<SourceServer | Receiver> = [];

beforeAll(async () => {
  env = await startTestEnv({
    CALLBACK_TIMEOUT_MS: '2000',
    CALLBACK_RETRY_INITIAL_MS: '300',
    CALLBACK_RETRY_MAX_INTERVAL_MS: '2000',
    CALLBACK_RETRY_WINDOW_MS: '60000',
  });
  project = await env.createProject({ source_hosts: ['127.0.0.1'], callback_hosts: ['127.0.0.1'] });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await env?.close();
});

async function receiver(answer?: (n: number) => Answer) {
  const r = await startReceiver(project.webhook_secret, answer);
  servers.push(r);
  return r;
}

async function source(opts: Parameters<typeof startSource>[0]) {
  const s = await startSource(opts);
  servers.push(s);
  return s;
}

async function submit(body: Record<string, unknown>) {
  const res = await env.api('POST', '/v1/tasks', { token: project.api_key, body: { operator_id: 'op-1', page_size: 100, ...body } });
  expect(res.status).toBe(202);
  return res.json.task_id as string;
}

async function deliveries(taskId: string, count: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await env.api('GET', `/v1/tasks/${taskId}/deliveries`, { token: project.api_key });
    expect(res.status).toBe(200);
    if (res.json.items.length >= count) return res.json.items;
    if (Date.now() > deadline) throw new Error(`only ${res.json.items.length} deliveries recorded`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function workflowStatus(workflowId: string) {
  return (await env.temporal.workflow.getHandle(workflowId).describe()).status.name;
}

describe('signed callbacks', () => {
  it('issues a secret the standardwebhooks library accepts', () => {
    expect(project.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(() => new Webhook(project.webhook_secret)).not.toThrow();
  });

  it('signs every attempt, retries 500 twice with the same webhook-id, and records each attempt', async () => {
    const hook = await receiver((n) => ({ status: n <= 2 ? 500 : 204 }));
    const src = await source({ total: 150 });
    const taskId = await submit({ source_url: src.url, callback: hook.url });
    const task = await env.waitForTask(taskId, project.api_key);
    expect(task.status).toBe('succeeded');

    const got = await hook.waitFor(3);
    for (const r of got) {
      expect(r.verifyError).toBeUndefined();
      expect(r.payload!.event).toBe('task.succeeded');
      expect(r.payload!.task).toMatchObject({ task_id: taskId, status: 'succeeded', error: null });
      expect(r.payload!.task.files[0]).toMatchObject({ rows: 150, url: expect.stringContaining(`/v1/files/${taskId}/`) });
      // the signature is really checked: another secret does not verify it
      expect(() => new Webhook(newWebhookSecret()).verify(r.body, r.headers)).toThrow();
    }
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([`msg_${taskId}_1`]));
    // backoff: 150–300 ms, then 300–600 ms (equal jitter on 300 ms doubling)
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(140);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(290);

    const items = await deliveries(taskId, 3);
    expect(items.map((d: any) => [d.attempt, d.status_code, d.webhook_id])).toEqual([
      [1, 500, `msg_${taskId}_1`],
      [2, 500, `msg_${taskId}_1`],
      [3, 204, `msg_${taskId}_1`],
    ]);
    expect(items[0].error).toBe('HTTP 500');
    expect(items[0].next_attempt_at).not.toBeNull();
    expect(items[2]).toMatchObject({ event: 'task.succeeded', error: null, next_attempt_at: null });
    for (const d of items) expect(d.latency_ms).toEqual(expect.any(Number));
    await expect.poll(() => workflowStatus(`${taskId}.callback.1`)).toBe('COMPLETED');
  });

  it('does not hold up the task when the receiver never answers', async () => {
    const hook = await receiver(() => 'hang');
    const src = await source({ total: 120 });
    const taskId = await submit({ source_url: src.url, callback: hook.url });
    const task = await env.waitForTask(taskId, project.api_key, undefined, 15_000);
    expect(task.status).toBe('succeeded');
    // the export workflow is done while its callback is still waiting for an answer
    await expect.poll(() => workflowStatus(taskId)).toBe('COMPLETED');
    await hook.waitFor(1);
    expect(await workflowStatus(`${taskId}.callback.1`)).toBe('RUNNING');
    const [first] = await deliveries(taskId, 1);
    expect(first).toMatchObject({ attempt: 1, status_code: null, error: 'no answer within 2000 ms' });
    expect(new Date(first.created_at).getTime() - new Date(task.finished_at).getTime()).toBeGreaterThanOrEqual(1500);
    await env.temporal.workflow.getHandle(`${taskId}.callback.1`).terminate('test over');
  });

  it('sends task.failed, and neither follows nor retries a redirect', async () => {
    const hook = await receiver(() => ({ status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } }));
    const src = await source({ total: 300, intercept: (r) => (r.page === 1 ? { status: 404, body: '{}' } : undefined) });
    const taskId = await submit({ source_url: src.url, callback: hook.url });
    expect((await env.waitForTask(taskId, project.api_key)).status).toBe('failed');
    const [r] = await hook.waitFor(1);
    expect(r!.verifyError).toBeUndefined();
    expect(r!.payload).toMatchObject({ event: 'task.failed', task: { task_id: taskId, status: 'failed', error: { code: 'source_bad_response' } } });
    await expect.poll(() => workflowStatus(`${taskId}.callback.1`)).toBe('FAILED');
    expect(hook.received).toHaveLength(1);
    const items = await deliveries(taskId, 1);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ event: 'task.failed', status_code: 302, next_attempt_at: null, error: expect.stringMatching(/redirects are not followed/) });
  });

  it('honours Retry-After on a 429', async () => {
    const hook = await receiver((n) => (n === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 }));
    const src = await source({ total: 10 });
    const taskId = await submit({ source_url: src.url, callback: hook.url });
    const got = await hook.waitFor(2);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(1900);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([`msg_${taskId}_1`, `msg_${taskId}_1`]);
    const items = await deliveries(taskId, 2);
    expect(items.map((d: any) => d.status_code)).toEqual([429, 200]);
  });

  it('checks the callback host again when it sends', async () => {
    const hook = await receiver();
    const src = await source({ total: 300, delayMs: () => 300 });
    const taskId = await submit({ source_url: src.url, callback: hook.url });
    await env.core.database.db.update(projects).set({ callbackHosts: ['hooks.example.com'] }).where(eq(projects.id, project.project_id));
    try {
      expect((await env.waitForTask(taskId, project.api_key)).status).toBe('succeeded');
      const items = await deliveries(taskId, 1);
      expect(items[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/no longer allowed/) });
      expect(hook.received).toHaveLength(0);
    } finally {
      await env.core.database.db.update(projects).set({ callbackHosts: ['127.0.0.1'] }).where(eq(projects.id, project.project_id));
    }
  });

  it('refuses a callback host that is not on the list at submission', async () => {
    const res = await env.api('POST', '/v1/tasks', {
      token: project.api_key,
      body: { operator_id: 'op-1', source_url: 'http://127.0.0.1:9/x', callback: 'https://elsewhere.example.com/hook' },
    });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('callback_host_not_allowed');
  });
});
