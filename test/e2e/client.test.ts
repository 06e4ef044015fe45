// The typed client (client/) against the real service: export and download, paging, the task
// actions, events over a WebSocket that is cut and comes back, and callback verification.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackEvent, errorEnvelope, projectSchema, taskEvent, taskPage, taskSchema } from '../../api/schemas/responses.js';
import { CallbackVerificationError, type Download, DownloadCenter, DownloadCenterError, type TaskEvent, verifyCallback } from '../../client/src/index.js';
import { downloadSchema } from '../../api/schemas/downloads.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { startReceiver } from '../support/receiver.js';
import { defaultRow, sourcePool } from '../support/source-server.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

let env: TestEnv;
let project: { project_id: string; api_key: string; webhook_secret: string };
let dc: DownloadCenter;
const { source, closeSources } = sourcePool();
const dir = mkdtempSync(join(tmpdir(), 'dc-client-'));

beforeAll(async () => {
  env = await startTestEnv();
  project = await env.createProject({ source_hosts: ['127.0.0.1'], callback_hosts: ['127.0.0.1'], max_running_tasks: 2 });
  dc = new DownloadCenter({ baseUrl: env.base, apiKey: project.api_key });
});

afterAll(async () => {
  await closeSources();
  await env?.close();
  rmSync(dir, { recursive: true, force: true });
});

function expectRows(body: Buffer, total: number) {
  const records = parse(body.toString('utf8').slice(1), { columns: true }) as Record<string, string>[];
  expect(records).toHaveLength(total);
  records.forEach((r, i) => {
    const want = defaultRow(i);
    expect(r).toEqual({ id: String(want.id), name: want.name, amount: String(want.amount), note: want.note });
  });
}

describe('export and download', () => {
  it('submits, waits until done and streams the file to a path, a Writable and a WritableStream', async () => {
    const src = await source({ total: 1234 });
    const submitted = await dc.submit({ source_url: src.url, operator_id: 'client', file_name: 'orders', page_size: 100 }, { idempotencyKey: 'client-orders-1' });
    expect(submitted).toMatchObject({ status: expect.stringMatching(/queued|running/), file_name: 'orders' });
    // The same Idempotency-Key and body: the same task.
    expect((await dc.submit({ source_url: src.url, operator_id: 'client', file_name: 'orders', page_size: 100 }, { idempotencyKey: 'client-orders-1' })).task_id).toBe(submitted.task_id);
    const seen: string[] = [];
    const task = await dc.waitUntilDone(submitted.task_id, { intervalMs: 100, timeoutMs: 60_000, onProgress: (t) => seen.push(t.status) });
    expect(task.status).toBe('succeeded');
    expect(seen.at(-1)).toBe('succeeded');
    // The documented Task schema (GET /openapi.json) is what the API answers: no field missing or extra.
    expect(taskSchema.strict().safeParse(task).error).toBeUndefined();
    expect(taskSchema.strict().safeParse(submitted).error).toBeUndefined();
    const file = task.files[0]!;

    const path = join(dir, 'orders.csv');
    const got = await dc.download(task.task_id, path);
    const body = readFileSync(path);
    expect(got).toEqual({ bytes: file.bytes, sha256: file.sha256 });
    expect(createHash('sha256').update(body).digest('hex')).toBe(file.sha256);
    expectRows(body, 1234);

    const chunks: Buffer[] = [];
    const writable = new PassThrough();
    writable.on('data', (c: Buffer) => chunks.push(c));
    await dc.download(task.task_id, writable);
    expect(Buffer.concat(chunks)).toEqual(body);

    const webChunks: Uint8Array[] = [];
    await dc.download(task.task_id, new WritableStream<Uint8Array>({ write: (c) => void webChunks.push(c) }));
    expect(Buffer.concat(webChunks)).toEqual(body);

    // Each of the three downloads is recorded (as its response ends), in the documented Download schema.
    const list = async (): Promise<Download[]> => {
      const items: Download[] = [];
      for await (const d of dc.taskDownloads(task.task_id)) items.push(d);
      return items;
    };
    let recorded = await list();
    for (let i = 0; i < 100 && recorded.length < 3; i++) recorded = await new Promise((r) => setTimeout(r, 50)).then(list);
    expect(recorded.map((d) => [d.via, d.by.kind, d.bytes, d.complete])).toEqual(Array(3).fill(['api', 'project', file.bytes, true]));
    for (const d of recorded) expect(downloadSchema.strict().safeParse(d).error).toBeUndefined();
    const all: Download[] = [];
    for await (const d of dc.downloads({ limit: 1 })) all.push(d);
    expect(all.map((d) => d.download_id)).toEqual(recorded.map((d) => d.download_id));
  });

  it('throws the error envelope as a DownloadCenterError, and leaves no partial file', async () => {
    const refused = await dc.submit({ source_url: 'not a url', operator_id: 'client' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DownloadCenterError);
    expect(refused).toMatchObject({ status: 422, code: 'validation_failed', details: [expect.objectContaining({ field: 'source_url' })] });
    expect((refused as DownloadCenterError).requestId).toEqual(expect.any(String));
    await expect(dc.get('tsk_missing')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    const path = join(dir, 'missing.csv');
    await expect(dc.download('tsk_missing', path)).rejects.toMatchObject({ status: 404 });
    expect(() => readFileSync(path)).toThrow(/ENOENT/);
    // The raw typed calls answer the documented envelope and objects.
    const raw = await dc.api.POST('/v1/tasks', { body: { source_url: 'http://127.0.0.1/x', operator_id: 'client', page_size: 5 } });
    expect(raw.response.status).toBe(422);
    expect(errorEnvelope.strict().safeParse(raw.error).error).toBeUndefined();
    const own = await dc.api.GET('/v1/projects/{project_id}', { params: { path: { project_id: project.project_id } } });
    expect(projectSchema.strict().safeParse(own.data).error).toBeUndefined();
    const stranger = new DownloadCenter({ baseUrl: env.base, apiKey: 'dck_not_a_key' });
    await expect(stranger.get('tsk_x')).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });
});

describe('list', () => {
  it('iterates every page, newest first', async () => {
    const src = await source({ total: 5 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await dc.submit({ source_url: `${src.url}?n=${i}`, operator_id: 'pager' })).task_id);
    const listed: string[] = [];
    for await (const t of dc.list({ operator_id: 'pager', limit: 2 })) listed.push(t.task_id);
    expect(listed).toEqual([...ids].reverse());
    const pages: number[] = [];
    for await (const page of dc.pages({ operator_id: 'pager', limit: 2 })) pages.push(page.items.length);
    expect(pages).toEqual([2, 2, 1]);
    const first = await dc.pages({ operator_id: 'pager', limit: 2 }).next();
    expect(taskPage.strict().safeParse(first.value).error).toBeUndefined();
    // Breaking out of the loop stops paging.
    for await (const t of dc.list({ operator_id: 'pager', limit: 1 })) {
      expect(t.task_id).toBe(ids[4]);
      break;
    }
    for (const id of ids) await dc.waitUntilDone(id, { intervalMs: 100, timeoutMs: 60_000 });
  });
});

describe('task actions', () => {
  it('pauses, resumes, cancels and retries a task', async () => {
    let slow = true;
    const src = await source({ total: 2000, delayMs: (r) => (slow && r.pageSize === 100 && r.page >= 2 ? 400 : 0) });
    const { task_id } = await dc.submit({ source_url: src.url, operator_id: 'actions', page_size: 100 });
    await expect.poll(async () => (await dc.get(task_id)).status, { timeout: 20_000 }).toBe('running');
    expect((await dc.pause(task_id)).status).toBe('paused');
    await expect(dc.pause(task_id)).rejects.toMatchObject({ status: 409, code: 'task_not_pausable' });
    expect((await dc.resume(task_id)).status).toMatch(/queued|running/);
    expect((await dc.cancel(task_id)).status).toBe('cancelled');
    await expect(dc.cancel(task_id)).rejects.toMatchObject({ status: 409, code: 'task_finished' });
    slow = false;
    // A cancel takes a moment to stop the run; retry says task_still_stopping until then.
    await expect
      .poll(async () => (await dc.retry(task_id).catch((e: DownloadCenterError) => ({ status: e.code }))).status, { timeout: 20_000, interval: 200 })
      .toMatch(/queued|running/);
    const done = await dc.waitUntilDone(task_id, { intervalMs: 100, timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: 'succeeded', runs: 2 });
  });
});

describe('watch', () => {
  it('receives progress and the final event, reconnecting after the connection is cut', async () => {
    const proxy = await startTcpProxy(env.base);
    let held = true;
    // Pages from 5 on wait while the connection is cut, so the task is still running when it comes back.
    const src = await source({ total: 3000, delayMs: (r) => (r.pageSize === 100 && r.page >= 5 && held ? 1500 : 0) });
    const through = new DownloadCenter({ baseUrl: proxy.url, apiKey: project.api_key });
    try {
      const { task_id } = await dc.submit({ source_url: src.url, operator_id: 'watcher', page_size: 100 });
      const reconnects: number[] = [];
      const events: TaskEvent[] = [];
      let cutAt = -1;
      for await (const e of through.watch(task_id, { initialDelayMs: 100, onReconnect: (n) => reconnects.push(n) })) {
        events.push(e);
        if (cutAt < 0 && e.event === 'task.progress' && e.task.progress.fetched_rows > 0) {
          cutAt = events.length;
          expect(proxy.cut()).toBeGreaterThan(0);
          held = false;
        }
      }
      expect(cutAt).toBeGreaterThan(0);
      expect(reconnects.length).toBeGreaterThanOrEqual(1);
      const last = events.at(-1)!;
      expect(last).toMatchObject({ event: 'task.succeeded', task: { task_id, status: 'succeeded', progress: { percent: 100 } } });
      // Events came after the reconnect: at least the state sent on subscribing again.
      expect(events.length).toBeGreaterThan(cutAt);
      expect(events.every((e) => e.task.task_id === task_id)).toBe(true);
      for (const e of events) expect(taskEvent.strict().safeParse(e).error).toBeUndefined();
    } finally {
      await proxy.close();
    }
  });

  it('watches the whole project until aborted, and refuses a bad key without retrying', async () => {
    const src = await source({ total: 300 });
    const abort = new AbortController();
    const finals = new Set<string>();
    const ids: string[] = [];
    const watching = (async () => {
      for await (const e of dc.watch('*', { signal: abort.signal })) {
        if (e.event === 'task.succeeded') finals.add(e.task.task_id);
        if (ids.length === 2 && ids.every((id) => finals.has(id))) abort.abort();
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    for (const op of ['w1', 'w2']) ids.push((await dc.submit({ source_url: src.url, operator_id: op, page_size: 100 })).task_id);
    await watching;
    expect([...finals]).toEqual(expect.arrayContaining(ids));

    const stranger = new DownloadCenter({ baseUrl: env.base, apiKey: 'dck_not_a_key' });
    const reconnects: number[] = [];
    const refused = await (async () => {
      for await (const _ of stranger.watch('*', { onReconnect: (n) => reconnects.push(n) })) void _;
    })().catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(reconnects).toEqual([]);
  });
});

describe('verifyCallback', () => {
  it('accepts a callback the service delivered and rejects a tampered one', async () => {
    const receiver = await startReceiver(project.webhook_secret);
    try {
      const src = await source({ total: 10 });
      const { task_id } = await dc.submit({ source_url: src.url, operator_id: 'hooks', callback: receiver.url });
      const [delivered] = await receiver.waitFor(1);
      const event = verifyCallback(project.webhook_secret, delivered!.body, delivered!.headers);
      expect(event).toMatchObject({ event: 'task.succeeded', task: { task_id, status: 'succeeded' } });
      expect(callbackEvent.strict().safeParse(event).error).toBeUndefined();
      // As a Headers object and as bytes too.
      expect(verifyCallback(project.webhook_secret, new TextEncoder().encode(delivered!.body), new Headers(delivered!.headers)).task.task_id).toBe(task_id);

      const tamperedBody = delivered!.body.replace('"succeeded"', '"failed"');
      expect(tamperedBody).not.toBe(delivered!.body);
      expect(() => verifyCallback(project.webhook_secret, tamperedBody, delivered!.headers)).toThrow(CallbackVerificationError);
      const sig = delivered!.headers['webhook-signature']!;
      const forged = { ...delivered!.headers, 'webhook-signature': `v1,${Buffer.from('x'.repeat(32)).toString('base64')}` };
      expect(sig).not.toBe(forged['webhook-signature']);
      expect(() => verifyCallback(project.webhook_secret, delivered!.body, forged)).toThrow(CallbackVerificationError);
      const otherSecret = `whsec_${Buffer.from('another-secret-of-32-bytes-long!').toString('base64')}`;
      expect(() => verifyCallback(otherSecret, delivered!.body, delivered!.headers)).toThrow(CallbackVerificationError);
    } finally {
      await receiver.close();
    }
  });
});
