// The record of downloads against the real service (docs/downloads.md): real exports, real sockets.
// Every way a file leaves — a project key's download, a signed link, an operator's center, an
// e-mail's link, a sync export's answer — is recorded with who, how, the bytes and whether it was
// whole; a client that hangs up mid-file leaves an incomplete record of what was sent; the client
// address comes from X-Forwarded-For only when TRUSTED_PROXIES names the peer; the records outlive
// the files (expiry) and go with the task's row.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import type { ServerType } from '@hono/node-server';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloads, operatorSessions, tasks } from '../../db/schema.js';
import { drainStarts, startApi } from '../../app/runtime-api.js';
import { markBatchExpired } from '../../domain/tasks/status.js';
import { freePort } from '../support/ports.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let smtp: SmtpSink;
let project: { project_id: string; api_key: string };
let other: { project_id: string; api_key: string };
const { source, closeSources } = sourcePool();

type Item = { download_id: string; task_id: string; file: string; at: string; by: { kind: string; id: string | null; session_id?: string }; via: string; ip: string; user_agent: string; bytes: number; complete: boolean };

beforeAll(async () => {
  smtp = await startSmtpSink();
  // The test's requests come from 127.0.0.1: here that is the trusted proxy.
  env = await startTestEnv({ SMTP_URL: smtp.url, TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' });
  project = await env.createProject({ source_hosts: ['127.0.0.1'] });
  other = await env.createProject({ source_hosts: ['127.0.0.1'] });
  await env.api('PATCH', `/v1/projects/${project.project_id}`, { token: ADMIN, body: { email_domains: ['example.test'] } });
}, 120_000);

afterAll(async () => {
  await closeSources();
  await env?.close();
  await smtp?.close();
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const taskDownloads = async (taskId: string, token = project.api_key): Promise<Item[]> => (await env.api('GET', `/v1/tasks/${taskId}/downloads?limit=100`, { token })).json.items;
const recorded = (taskId: string, n: number) => until(() => taskDownloads(taskId), (items) => items.length >= n);

async function exported(body: Record<string, unknown>): Promise<any> {
  const res = await env.api('POST', '/v1/tasks', { token: project.api_key, body: { operator_id: 'alice', ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const task = await env.waitForTask(res.json.task_id, project.api_key, undefined, 120_000);
  expect(task.status).toBe('succeeded');
  return task;
}

/** A GET over a socket of its own; `abortAfter` bytes: hangs up once that many have arrived. */
function get(url: string, headers: Record<string, string> = {}, abortAfter = Infinity): Promise<{ status: number; bytes: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let bytes = 0;
      const chunks: Buffer[] = [];
      const done = () => resolve({ status: res.statusCode!, bytes, body: Buffer.concat(chunks) });
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        chunks.push(chunk);
        if (bytes >= abortAfter) {
          req.destroy();
          done();
        }
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.on('error', (err) => (abortAfter === Infinity ? reject(err) : undefined));
    req.end();
  });
}

let small: any;

describe('every way a file leaves is recorded', () => {
  it("a project key's download, whole, with the client's address and user agent", async () => {
    const src = await source({ total: 120 });
    small = await exported({ source_url: src.url, file_name: 'small' });
    const res = await get(`${env.base}/v1/tasks/${small.task_id}/download`, { authorization: `Bearer ${project.api_key}`, 'user-agent': 'audit-test/1' });
    expect(res).toMatchObject({ status: 200, bytes: small.files[0].bytes });
    const [d] = await recorded(small.task_id, 1);
    expect(d).toMatchObject({ file: small.files[0].name, by: { kind: 'project', id: project.project_id }, via: 'api', ip: '127.0.0.1', user_agent: 'audit-test/1', bytes: small.files[0].bytes, complete: true });
  });

  it('a signed link of the project, and an operator center session\'s link', async () => {
    expect((await get(small.files[0].url)).status).toBe(200);
    const session = (await env.api('POST', '/v1/operator-sessions', { token: project.api_key, body: { operator_id: 'alice' } })).json;
    const mine = (await env.api('GET', `/v1/tasks/${small.task_id}`, { token: session.token })).json;
    expect((await get(mine.files[0].url)).status).toBe(200);
    const [center, link] = await recorded(small.task_id, 3);
    expect(link).toMatchObject({ by: { kind: 'link', id: null }, via: 'link', complete: true });
    expect(center).toMatchObject({ by: { kind: 'operator', id: 'alice', session_id: session.session_id }, via: 'link', complete: true });
    // Their page's count: their own downloads only.
    expect((await env.api('GET', '/v1/downloads/count', { token: session.token })).json).toEqual({ count: 1, more: false });
  });

  it("an e-mail's link: the mailed session of that one task", async () => {
    const src = await source({ total: 50 });
    const task = await exported({ source_url: src.url, file_name: 'mailed', notify_email: ['alice@example.test'] });
    const mail = await until(async () => smtp.received.find((m) => (m.parsed.text ?? '').includes('#token=')), (m) => m !== undefined);
    const token = /#token=(dco_[A-Za-z0-9_-]+)/.exec(mail!.parsed.text ?? '')![1]!;
    const view = (await env.api('GET', `/v1/tasks/${task.task_id}`, { token })).json;
    expect((await get(view.files[0].url)).status).toBe(200);
    const [d] = await recorded(task.task_id, 1);
    expect(d).toMatchObject({ by: { kind: 'operator', id: 'alice' }, via: 'link', complete: true });
    const [session] = await env.core.database.db.select().from(operatorSessions).where(eq(operatorSessions.id, d!.by.session_id!));
    expect(session?.taskId).toBe(task.task_id);
    // That session's own list holds that task's downloads alone.
    expect(((await env.api('GET', '/v1/downloads', { token })).json.items as Item[]).map((x) => x.task_id)).toEqual([task.task_id]);
  });

  it("a sync export's answer", async () => {
    const src = await source({ total: 30 });
    const res = await fetch(`${env.base}/v1/tasks/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operator_id: 'alice', source_url: src.url, page_size: 100 }),
    });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    const [d] = await recorded(res.headers.get('x-task-id')!, 1);
    expect(d).toMatchObject({ by: { kind: 'project', id: project.project_id }, via: 'sync', bytes: body.length, complete: true });
  });
});

describe('a download cut short', () => {
  it('is recorded incomplete, with the bytes that were sent', async () => {
    // About 24 MB: far more than the sockets' buffers hold once the client stops reading.
    const src = await source({ total: 6000, row: (i) => ({ id: i, pad: 'x'.repeat(4000) }) });
    const big = await exported({ source_url: src.url, file_name: 'big', page_size: 1000 });
    const size = big.files[0].bytes as number;
    expect(size).toBeGreaterThan(20_000_000);
    const got = await get(`${env.base}/v1/tasks/${big.task_id}/download`, { authorization: `Bearer ${project.api_key}` }, 256 * 1024);
    expect(got.bytes).toBeLessThan(size);
    const [d] = await recorded(big.task_id, 1);
    expect(d).toMatchObject({ complete: false, range: null });
    expect(d!.bytes).toBeGreaterThanOrEqual(got.bytes);
    expect(d!.bytes).toBeLessThan(size);

    // The client resumes where it stopped (Range): the two parts are the file, and the record says which part.
    const rest = await get(`${env.base}/v1/tasks/${big.task_id}/download`, { authorization: `Bearer ${project.api_key}`, range: `bytes=${got.bytes}-` });
    expect(rest.status).toBe(206);
    expect(createHash('sha256').update(Buffer.concat([got.body, rest.body])).digest('hex')).toBe(big.files[0].sha256);
    const [resumed] = await recorded(big.task_id, 2);
    // With the first part, the downloader now holds the whole file: the resumed part is the complete one.
    expect(resumed).toMatchObject({ range: `bytes ${got.bytes}-${size - 1}/${size}`, bytes: size - got.bytes, complete: true });
  }, 180_000);
});

describe('the client address', () => {
  it('is taken from X-Forwarded-For when the peer is a trusted proxy, up to the first hop it does not trust', async () => {
    const via = async (xff: string) => {
      const before = (await taskDownloads(small.task_id)).length;
      await get(`${env.base}/v1/tasks/${small.task_id}/download`, { authorization: `Bearer ${project.api_key}`, 'x-forwarded-for': xff });
      return (await recorded(small.task_id, before + 1))[0]!.ip;
    };
    expect(await via('203.0.113.7')).toBe('203.0.113.7');
    // What the client put in front of its own address is not believed; a trusted hop is passed over.
    expect(await via('198.51.100.1, 203.0.113.7, 10.1.2.3')).toBe('203.0.113.7');
    // Nonsense stops at the last address known: the trusted peer.
    expect(await via('not-an-address')).toBe('127.0.0.1');
  });

  it('is the socket peer, whatever the header says, where no proxy is trusted', async () => {
    const port = await freePort();
    const server: ServerType = await startApi({ ...env.core, config: { ...env.config, PORT: port, TRUSTED_PROXIES: [] }, temporal: env.temporal });
    try {
      const before = (await taskDownloads(small.task_id)).length;
      await get(`http://127.0.0.1:${port}/v1/tasks/${small.task_id}/download`, { authorization: `Bearer ${project.api_key}`, 'x-forwarded-for': '203.0.113.7' });
      expect((await recorded(small.task_id, before + 1))[0]!.ip).toBe('127.0.0.1');
    } finally {
      await new Promise((r) => server.close(r));
      await drainStarts(server);
    }
  });
});

describe('the lists', () => {
  it("are each project's own, paged newest first over the whole project", async () => {
    const all: Item[] = [];
    let cursor: string | null = null;
    do {
      const page: { json: { items: Item[]; next_cursor: string | null } } = await env.api('GET', `/v1/downloads?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token: project.api_key });
      all.push(...page.json.items);
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(all.length).toBeGreaterThanOrEqual(9);
    expect(new Set(all.map((d) => d.download_id)).size).toBe(all.length);
    expect(all.map((d) => d.at)).toEqual([...all.map((d) => d.at)].sort().reverse());
    expect((await env.api('GET', '/v1/downloads/count', { token: project.api_key })).json).toEqual({ count: all.length, more: false });
    expect((await env.api('GET', '/v1/downloads', { token: other.api_key })).json.items).toEqual([]);
    expect((await env.api('GET', `/v1/tasks/${small.task_id}/downloads`, { token: other.api_key })).status).toBe(404);
  });
});

describe('kept as long as the task', () => {
  it('outlive the files (expiry keeps the row) and go with the row', async () => {
    const n = (await taskDownloads(small.task_id)).length;
    const { db } = env.core.database;
    await markBatchExpired(db, [small.task_id]);
    expect((await env.api('GET', `/v1/tasks/${small.task_id}`, { token: project.api_key })).json.status).toBe('expired');
    expect(await taskDownloads(small.task_id)).toHaveLength(n);
    await db.delete(tasks).where(eq(tasks.id, small.task_id));
    expect(await db.select().from(downloads).where(eq(downloads.taskId, small.task_id))).toEqual([]);
  });
});
