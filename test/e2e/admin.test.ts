// The operators' API (docs/operations.md#the-admin-api): projects listed, changed and their secrets rotated; tasks
// across projects listed and counted; project keys refused with 403 everywhere here.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type SourceServer, startSource } from '../support/source-server.js';

// Long enough for two exports and their callbacks inside the grace period on a loaded machine
// (3 s was not, with two suites sharing 2 cores).
const GRACE_S = 8;
let env: TestEnv;
let src: SourceServer;
let slow: SourceServer;

beforeAll(async () => {
  env = await startTestEnv({ KEY_ROTATION_GRACE_SECONDS: String(GRACE_S) });
  src = await startSource({ total: 300 });
  slow = await startSource({ total: 20_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 50) });
});

afterAll(async () => {
  await Promise.all([src?.close(), slow?.close()]);
  await env?.close();
});

const submit = async (key: string, body: Record<string, unknown>) => {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json.task_id as string;
};

describe('refusals', () => {
  it('answers 403 to a project key on every admin endpoint and 401 without a key', async () => {
    const p = await env.createProject({ name: 'key-holder' });
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/v1/projects'],
      ['PATCH', `/v1/projects/${p.project_id}`, { max_running_tasks: 9 }],
      ['POST', `/v1/projects/${p.project_id}/rotate-key`],
      ['POST', `/v1/projects/${p.project_id}/rotate-webhook-secret`],
      ['GET', '/v1/admin/tasks'],
      ['GET', '/v1/admin/tasks/counts'],
      ['GET', `/v1/admin/tasks?project_id=${p.project_id}`],
      ['GET', '/metrics'],
    ];
    for (const [method, path, body] of calls) {
      const res = await env.api(method, path, { token: p.api_key, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.error.code).toBe('forbidden');
      expect((await env.api(method, path, { body })).status, `${method} ${path} without a key`).toBe(401);
    }
    // Its own project it may read, never change.
    expect((await env.api('GET', `/v1/projects/${p.project_id}`, { token: p.api_key })).status).toBe(200);
  });
});

describe('projects', () => {
  it('lists every project in creation order with cursor paging, never a secret', async () => {
    const made: Array<{ project_id: string; api_key: string; webhook_secret: string }> = [];
    for (let i = 0; i < 3; i++) made.push(await env.createProject({ name: `list-${i}` }));
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const res = await env.api('GET', `/v1/projects?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: ADMIN });
      expect(res.status).toBe(200);
      expect(res.json.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.json.items);
      cursor = res.json.next_cursor;
    } while (cursor);
    const ids = seen.map((p) => p.project_id);
    expect(new Set(ids).size).toBe(ids.length);
    const mine = ids.filter((id) => made.some((m) => m.project_id === id));
    expect(mine).toEqual(made.map((m) => m.project_id));
    const text = JSON.stringify(seen);
    for (const m of made) {
      expect(text).not.toContain(m.api_key);
      expect(text).not.toContain(m.webhook_secret);
    }
    expect((await env.api('GET', '/v1/projects?cursor=nope', { token: ADMIN })).status).toBe(422);
  });

  it('changes settings validated like creation, keeping what is not sent', async () => {
    const p = await env.createProject({ name: 'patch-me', retention_hours: 48, source_max_concurrency: 3 });
    const res = await env.api('PATCH', `/v1/projects/${p.project_id}`, { token: ADMIN, body: { submit_per_minute: 7, source_rps: 2.5, callback_hosts: ['Hooks.Example.com'] } });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json).toMatchObject({ name: 'patch-me', retention_hours: 48, submit_per_minute: 7, source_rps: 2.5, source_max_concurrency: 3, callback_hosts: ['hooks.example.com'] });
    expect((await env.api('GET', `/v1/projects/${p.project_id}`, { token: ADMIN })).json).toMatchObject({ submit_per_minute: 7, source_rps: 2.5, retention_hours: 48 });

    const bad = await env.api('PATCH', `/v1/projects/${p.project_id}`, { token: ADMIN, body: { max_running_tasks: 0, source_hosts: [], api_key: 'dck_mine', retention_hours: 'long' } });
    expect(bad.status).toBe(422);
    expect(bad.json.error.code).toBe('validation_failed');
    expect(bad.json.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['api_key', 'max_running_tasks', 'retention_hours', 'source_hosts']);
    expect((await env.api('PATCH', `/v1/projects/${p.project_id}`, { token: ADMIN, body: {} })).status).toBe(422);
    expect((await env.api('PATCH', '/v1/projects/prj_missing', { token: ADMIN, body: { name: 'x' } })).status).toBe(404);
  });

  it('starts waiting tasks at once when max_running_tasks is raised', async () => {
    const p = await env.createProject({ name: 'slots', source_hosts: [slow.host], max_running_tasks: 1 });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await env.api('POST', '/v1/tasks', { token: p.api_key, body: { source_url: `${slow.url}?i=${i}`, operator_id: 'o', page_size: 100 } })).json.task_id);
    const counts = async () => (await env.api('GET', `/v1/admin/tasks/counts?project_id=${p.project_id}`, { token: ADMIN })).json.counts;
    await expect.poll(counts, { timeout: 10_000 }).toMatchObject({ running: 1, queued: 2 });
    expect((await env.api('PATCH', `/v1/projects/${p.project_id}`, { token: ADMIN, body: { max_running_tasks: 3 } })).status).toBe(200);
    await expect.poll(counts, { timeout: 5_000 }).toMatchObject({ running: 3, queued: 0 });
    for (const id of ids) await env.api('POST', `/v1/tasks/${id}/cancel`, { token: p.api_key });
  });
});

describe('rotation', () => {
  it('rotates the API key: the old one works for KEY_ROTATION_GRACE_SECONDS, then answers 401', async () => {
    const p = await env.createProject({ name: 'rotate-key' });
    const res = await env.api('POST', `/v1/projects/${p.project_id}/rotate-key`, { token: ADMIN });
    expect(res.status).toBe(200);
    const { api_key: fresh, previous_key_expires_at } = res.json;
    expect(fresh).toMatch(/^dck_/);
    expect(fresh).not.toBe(p.api_key);
    const left = new Date(previous_key_expires_at).getTime() - Date.now();
    expect(left).toBeGreaterThan((GRACE_S - 1) * 1000);
    expect(left).toBeLessThanOrEqual(GRACE_S * 1000);
    expect((await env.api('GET', '/v1/tasks', { token: p.api_key })).status).toBe(200);
    expect((await env.api('GET', '/v1/tasks', { token: fresh })).status).toBe(200);
    // The new key is shown once: the project as listed never carries it.
    expect(JSON.stringify((await env.api('GET', `/v1/projects/${p.project_id}`, { token: ADMIN })).json)).not.toContain(fresh);

    await new Promise((r) => setTimeout(r, left + 200));
    const old = await env.api('GET', '/v1/tasks', { token: p.api_key });
    expect(old.status).toBe(401);
    expect(old.json.error.code).toBe('unauthorized');
    expect((await env.api('GET', '/v1/tasks', { token: fresh })).status).toBe(200);

    // A second rotation retires the first new key into the grace period; the original stays dead.
    const again = await env.api('POST', `/v1/projects/${p.project_id}/rotate-key`, { token: ADMIN });
    expect((await env.api('GET', '/v1/tasks', { token: fresh })).status).toBe(200);
    expect((await env.api('GET', '/v1/tasks', { token: again.json.api_key })).status).toBe(200);
    expect((await env.api('GET', '/v1/tasks', { token: p.api_key })).status).toBe(401);
  });

  it('rotates the webhook secret: callbacks carry a signature for each secret during the grace period', async () => {
    const p = await env.createProject({ name: 'rotate-hook', callback_hosts: ['127.0.0.1'] });
    const rotated = await env.api('POST', `/v1/projects/${p.project_id}/rotate-webhook-secret`, { token: ADMIN });
    expect(rotated.status).toBe(200);
    const fresh = rotated.json.webhook_secret as string;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(p.webhook_secret);
    // One receiver verifies with the old secret, the other with the new one: both accept the same callback.
    const receivers: Receiver[] = [await startReceiver(p.webhook_secret), await startReceiver(fresh)];
    try {
      for (const r of receivers) await submit(p.api_key, { operator_id: 'hook', callback: r.url });
      const [withOld, withNew] = await Promise.all(receivers.map(async (r) => (await r.waitFor(1))[0]!));
      for (const got of [withOld!, withNew!]) {
        expect(got.verifyError).toBeUndefined();
        expect(got.payload).toMatchObject({ event: 'task.succeeded' });
        expect(got.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      }
      // After the grace period only the new secret signs.
      await new Promise((r) => setTimeout(r, new Date(rotated.json.previous_secret_expires_at).getTime() - Date.now() + 200));
      const late = await startReceiver(fresh);
      receivers.push(late);
      await submit(p.api_key, { operator_id: 'hook-late', callback: late.url });
      const got = (await late.waitFor(1))[0]!;
      expect(got.verifyError).toBeUndefined();
      expect(got.headers['webhook-signature']!.split(' ')).toHaveLength(1);
      expect(() => new Webhook(p.webhook_secret).verify(got.body, got.headers)).toThrow();
    } finally {
      await Promise.all(receivers.map((r) => r.close()));
    }
  });
});

describe('tasks across projects', () => {
  it('lists and counts every project’s tasks, filtered by project, status, stage and operator', async () => {
    const a = await env.createProject({ name: 'ops-a', source_hosts: [src.host, slow.host] });
    const b = await env.createProject({ name: 'ops-b' });
    const a1 = await submit(a.api_key, { operator_id: 'alice' });
    const b1 = await submit(b.api_key, { operator_id: 'alice' });
    const b2 = await submit(b.api_key, { operator_id: 'bob' });
    for (const [id, key] of [[a1, a.api_key], [b1, b.api_key], [b2, b.api_key]] as const) await env.waitForTask(id, key);
    const running = (await env.api('POST', '/v1/tasks', { token: a.api_key, body: { source_url: slow.url, operator_id: 'carol', page_size: 100 } })).json.task_id;
    await env.waitForTask(running, a.api_key, (t) => t.stage === 'fetching');

    const list = async (q: string) => {
      const res = await env.api('GET', `/v1/admin/tasks?${q}`, { token: ADMIN });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json.items.map((t: { task_id: string }) => t.task_id);
    };
    expect(await list(`operator_id=alice&status=succeeded`)).toEqual(expect.arrayContaining([a1, b1]));
    expect(await list(`project_id=${b.project_id}`)).toEqual([b2, b1]);
    expect(await list(`project_id=${b.project_id}&operator_id=bob`)).toEqual([b2]);
    expect(await list(`project_id=${a.project_id}&status=running&stage=fetching`)).toEqual([running]);
    expect(await list(`project_id=${a.project_id}&stage=rendering`)).toEqual([]);
    const page1 = await env.api('GET', `/v1/admin/tasks?limit=1&project_id=${b.project_id}`, { token: ADMIN });
    const page2 = await env.api('GET', `/v1/admin/tasks?limit=1&project_id=${b.project_id}&cursor=${page1.json.next_cursor}`, { token: ADMIN });
    expect([page1.json.items[0].task_id, page2.json.items[0].task_id]).toEqual([b2, b1]);
    expect(page2.json.items[0].project_id).toBe(b.project_id);
    expect((await env.api('GET', '/v1/admin/tasks?stage=cooking', { token: ADMIN })).status).toBe(422);

    const counts = await env.api('GET', `/v1/admin/tasks/counts?project_id=${b.project_id}`, { token: ADMIN });
    expect(counts.json.counts).toEqual({ queued: 0, running: 0, paused: 0, succeeded: 2, failed: 0, cancelled: 0, expired: 0 });
    const alice = await env.api('GET', '/v1/admin/tasks/counts?operator_id=alice', { token: ADMIN });
    expect(alice.json.counts.succeeded).toBeGreaterThanOrEqual(2);
    const fetching = await env.api('GET', '/v1/admin/tasks/counts?stage=fetching', { token: ADMIN });
    expect(fetching.json.counts.running).toBeGreaterThanOrEqual(1);
    await env.api('POST', `/v1/tasks/${running}/cancel`, { token: a.api_key });
  });
});
