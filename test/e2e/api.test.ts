// The API's edges: auth and tenancy, validation, links, de-duplication, listing, rate limits.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signLink } from '../../platform/links.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type SourceServer, startSource } from '../support/source-server.js';

let env: TestEnv;
let src: SourceServer;
let a: { project_id: string; api_key: string };
let b: { project_id: string; api_key: string };

beforeAll(async () => {
  env = await startTestEnv();
  src = await startSource({ total: 120 });
  a = await env.createProject({ name: 'a', source_hosts: [src.host], callback_hosts: ['hooks.example.com'] });
  b = await env.createProject({ name: 'b', source_hosts: [src.host] });
});

afterAll(async () => {
  await src?.close();
  await env?.close();
});

const submit = (key: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', ...body }, headers });

describe('auth and tenancy', () => {
  it('refuses a missing or unknown key with 401 in the error shape', async () => {
    const none = await env.api('GET', '/v1/tasks');
    expect(none.status).toBe(401);
    expect(none.json.error).toMatchObject({ code: 'unauthorized', message: expect.any(String), request_id: expect.any(String) });
    expect((await env.api('GET', '/v1/tasks', { token: 'dck_nope' })).status).toBe(401);
  });

  it('keeps admin calls for the admin token', async () => {
    const res = await env.api('POST', '/v1/projects', { token: a.api_key, body: { name: 'x', source_hosts: ['h'] } });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('forbidden');
  });

  it("answers 404 for another project's task and project, never its data", async () => {
    const mine = await submit(a.api_key, { operator_id: 'tenancy' });
    expect(mine.status).toBe(202);
    const theirs = await env.api('GET', `/v1/tasks/${mine.json.task_id}`, { token: b.api_key });
    expect(theirs.status).toBe(404);
    expect(JSON.stringify(theirs.json)).not.toContain(src.url);
    expect((await env.api('GET', `/v1/tasks/${mine.json.task_id}/download`, { token: b.api_key })).status).toBe(404);
    expect((await env.api('GET', `/v1/projects/${a.project_id}`, { token: b.api_key })).status).toBe(404);
    expect((await env.api('GET', `/v1/projects/${a.project_id}`, { token: a.api_key })).json.project_id).toBe(a.project_id);
    const list = await env.api('GET', '/v1/tasks?operator_id=tenancy', { token: b.api_key });
    expect(list.json.items).toEqual([]);
  });

  it('does not store API keys in clear', async () => {
    const rows = await env.core.database.db.query.projects.findMany();
    expect(JSON.stringify(rows)).not.toContain(a.api_key);
  });
});

describe('validation', () => {
  it('answers 422 naming each bad field', async () => {
    const res = await submit(a.api_key, { page_size: 50, priority: 9, operator_id: '' });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation_failed');
    expect(res.json.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['operator_id', 'page_size', 'priority']);
    expect((await submit(a.api_key, { page_size: 1001 })).json.error.details[0].field).toBe('page_size');
    const missing = await env.api('POST', '/v1/tasks', { token: a.api_key, body: {} });
    expect(missing.json.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['operator_id', 'source_url']);
  });

  it('answers 400 for malformed JSON and 413 for a body too large', async () => {
    const bad = await env.api('POST', '/v1/tasks', { token: a.api_key, raw: '{"source_url":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('malformed_json');
    // On its own connection: the server answers 413 without reading the rest and closes it.
    const body = JSON.stringify({ source_url: src.url, operator_id: 'op', summary: 'x'.repeat(300 * 1024) });
    const big = await new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = request(`${env.base}/v1/tasks`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${a.api_key}`, 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(big.status).toBe(413);
    expect(big.json.error.code).toBe('payload_too_large');
  });

  it('refuses hosts off the allow-lists and metadata addresses', async () => {
    const off = await submit(a.api_key, { source_url: 'http://example.org/x' });
    expect(off.status).toBe(422);
    expect(off.json.error.code).toBe('source_host_not_allowed');
    const meta = await submit(a.api_key, { source_url: 'http://169.254.169.254/latest/meta-data' });
    expect(meta.json.error.code).toBe('source_host_not_allowed');
    expect(meta.json.error.message).toMatch(/metadata/);
    const cb = await submit(a.api_key, { callback: 'https://evil.example.net/hook' });
    expect(cb.json.error.code).toBe('callback_host_not_allowed');
    const proj = await env.api('POST', '/v1/projects', { token: ADMIN, body: { name: 'x', source_hosts: ['http://bad/path'] } });
    expect(proj.status).toBe(422);
    expect(proj.json.error.details[0].field).toBe('source_hosts.0');
  });
});

describe('signed links', () => {
  it('serves a valid link, refuses a tampered one with 403 and an expired one with 410', async () => {
    const res = await submit(a.api_key, { operator_id: 'links' });
    const task = await env.waitForTask(res.json.task_id, a.api_key);
    const url = new URL(task.files[0].url);
    expect((await fetch(url)).status).toBe(200);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const t = await fetch(tampered);
    expect(t.status).toBe(403);
    expect(((await t.json()) as any).error.code).toBe('invalid_signature');
    const otherTask = new URL(url.toString().replace(task.task_id, 'tsk_other'));
    expect((await fetch(otherTask)).status).toBe(403);
    const old = signLink({ baseUrl: env.base, secret: env.config.LINK_SECRET!, taskId: task.task_id, name: task.files[0].name, expiresAt: new Date(Date.now() - 1000) });
    const e = await fetch(old.url);
    expect(e.status).toBe(410);
    expect(((await e.json()) as any).error.code).toBe('link_expired');
  });
});

describe('de-duplication and listing', () => {
  it('returns the same task for the same Idempotency-Key and refuses it with another body', async () => {
    const first = await submit(a.api_key, { operator_id: 'idem' }, { 'Idempotency-Key': 'k-1' });
    expect(first.status).toBe(202);
    const again = await submit(a.api_key, { operator_id: 'idem' }, { 'Idempotency-Key': 'k-1' });
    expect(again.status).toBe(200);
    expect(again.json.task_id).toBe(first.json.task_id);
    const other = await submit(a.api_key, { operator_id: 'idem', page_size: 200 }, { 'Idempotency-Key': 'k-1' });
    expect(other.status).toBe(422);
    expect(other.json.error.code).toBe('idempotency_key_reused');
  });

  it('returns the running task for an identical request without a key, and a new one once it finished', async () => {
    const slow = await startSource({ total: 300, intercept: (r) => (r.pageSize === 100 ? undefined : undefined) });
    const p = await env.createProject({ name: 'dedupe', source_hosts: [slow.host] });
    const body = { source_url: slow.url, operator_id: 'dup', page_size: 100 };
    const one = await env.api('POST', '/v1/tasks', { token: p.api_key, body });
    const two = await env.api('POST', '/v1/tasks', { token: p.api_key, body });
    expect(two.status).toBe(200);
    expect(two.json.task_id).toBe(one.json.task_id);
    await env.waitForTask(one.json.task_id, p.api_key);
    const three = await env.api('POST', '/v1/tasks', { token: p.api_key, body });
    expect(three.status).toBe(202);
    expect(three.json.task_id).not.toBe(one.json.task_id);
    await env.waitForTask(three.json.task_id, p.api_key);
    await slow.close();
  });

  it('lists newest first with cursor paging, filters, and counts by status', async () => {
    const p = await env.createProject({ name: 'list', source_hosts: [src.host] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await env.api('POST', '/v1/tasks', { token: p.api_key, body: { source_url: `${src.url}?n=${i}`, operator_id: i % 2 ? 'odd' : 'even' } });
      ids.push(r.json.task_id);
    }
    await Promise.all(ids.map((id) => env.waitForTask(id, p.api_key)));
    const page1 = await env.api('GET', '/v1/tasks?limit=2', { token: p.api_key });
    const page2 = await env.api('GET', `/v1/tasks?limit=2&cursor=${page1.json.next_cursor}`, { token: p.api_key });
    const page3 = await env.api('GET', `/v1/tasks?limit=2&cursor=${page2.json.next_cursor}`, { token: p.api_key });
    const seen = [...page1.json.items, ...page2.json.items, ...page3.json.items].map((t: { task_id: string }) => t.task_id);
    expect(seen).toEqual([...ids].reverse());
    expect(page3.json.next_cursor).toBeNull();
    const odd = await env.api('GET', '/v1/tasks?operator_id=odd&status=succeeded', { token: p.api_key });
    expect(odd.json.items.map((t: { task_id: string }) => t.task_id)).toEqual([ids[3], ids[1]]);
    expect((await env.api('GET', '/v1/tasks?status=nope', { token: p.api_key })).status).toBe(422);
    expect((await env.api('GET', '/v1/tasks?cursor=garbage', { token: p.api_key })).status).toBe(422);
    const counts = await env.api('GET', '/v1/tasks/counts', { token: p.api_key });
    expect(counts.json.counts).toEqual({ queued: 0, running: 0, paused: 0, succeeded: 5, failed: 0, cancelled: 0, expired: 0 });
  });

  it("answers 429 with Retry-After over the project's submit rate", async () => {
    const p = await env.createProject({ name: 'rate', source_hosts: [src.host], submit_per_minute: 2 });
    const go = (i: number) => env.api('POST', '/v1/tasks', { token: p.api_key, body: { source_url: `${src.url}?r=${i}`, operator_id: 'r' } });
    expect((await go(1)).status).toBe(202);
    expect((await go(2)).status).toBe(202);
    const third = await go(3);
    expect(third.status).toBe(429);
    expect(third.json.error.code).toBe('rate_limited');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
