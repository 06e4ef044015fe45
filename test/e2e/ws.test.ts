import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess } from '../support/api-process.js';
import { sourcePool } from '../support/source-server.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { type Client, connect } from '../support/ws-client.js';

let env: TestEnv;
let a: { project_id: string; api_key: string };
let b: { project_id: string; api_key: string };
const { source, closeSources } = sourcePool();
const clients: Client[] = [];

beforeAll(async () => {
  env = await startTestEnv({ WS_IDLE_MS: '1500', WS_MAX_SUBSCRIPTIONS: '3', WS_MAX_FRAME_BYTES: '1024' });
  a = await env.createProject({ name: 'a' });
  b = await env.createProject({ name: 'b' });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await closeSources();
  await env?.close();
});


async function client(token: string, opts: { header?: boolean; base?: string } = {}) {
  const c = await connect(opts.base ?? env.base, { token, header: opts.header });
  clients.push(c);
  return c;
}

async function submit(key: string, body: Record<string, unknown>) {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-ws', page_size: 100, ...body } });
  expect(res.status).toBe(202);
  return res.json.task_id as string;
}

const final = (id: string) => (m: any) => m.task?.task_id === id && m.event !== 'task.progress';

describe('WebSocket /v1/ws', () => {
  it('sends the current state at once, then throttled progress in order, then the final event', async () => {
    // 25 pages at ~80 ms each: about two seconds of fetching.
    const src = await source({ total: 2500, delayMs: (r) => (r.pageSize === 1 ? 0 : 80) });
    const taskId = await submit(a.api_key, { source_url: src.url });
    const ws = await client(a.api_key);
    const started = Date.now();
    ws.send({ subscribe: taskId });
    expect(await ws.next((m) => 'subscribed' in m)).toEqual({ subscribed: taskId });
    const first = await ws.next((m) => m.task?.task_id === taskId);
    expect(['queued', 'running']).toContain(first.task.status);
    const done = await ws.next(final(taskId));
    const elapsed = Date.now() - started;
    expect(done.event).toBe('task.succeeded');
    expect(done.task).toMatchObject({ status: 'succeeded', progress: { percent: 100, fetched_rows: 2500 } });
    expect(done.task.files[0].url).toContain(`/v1/files/${taskId}/`);

    const events = ws.messages.filter((m) => m.task?.task_id === taskId);
    expect(events.at(-1)).toBe(done);
    const progress = events.filter((m) => m.event === 'task.progress');
    const percents = progress.map((m) => m.task.progress.percent);
    expect(percents).toEqual([...percents].sort((x, y) => x - y));
    const midway = progress.filter((m) => m.task.status === 'running' && m.task.progress.percent > 0 && m.task.progress.percent < 100);
    expect(midway.length).toBeGreaterThanOrEqual(2);
    expect(midway.some((m) => typeof m.task.progress.eta_seconds === 'number')).toBe(true);
    // at most one progress frame per 250 ms throttle interval (plus the one sent on subscribing)
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(elapsed / 250) + 2);
  });

  it('accepts the key in the Authorization header and refuses the upgrade without one', async () => {
    const ws = await client(a.api_key, { header: true });
    ws.send({ subscribe: '*' });
    expect(await ws.next((m) => 'subscribed' in m)).toEqual({ subscribed: '*' });
    await expect(connect(env.base)).rejects.toMatchObject({ statusCode: 401 });
    await expect(connect(env.base, { token: 'dck_not-a-key' })).rejects.toMatchObject({ statusCode: 401 });
    const plain = await env.api('GET', '/v1/ws', { token: a.api_key });
    expect(plain.status).toBe(426);
    // Upgrade headers without a key: the documented 426 with the error body, not ws' bare 400.
    const partial = await rawUpgrade(env.base, { authorization: `Bearer ${a.api_key}`, upgrade: 'websocket', connection: 'Upgrade' });
    expect(partial.status).toBe(426);
    expect(JSON.parse(partial.body).error.code).toBe('upgrade_required');
    // Another method with upgrade headers (Node hands it to the upgrade handler, which asks the app as a GET): 405.
    const trace = await rawUpgrade(env.base, { authorization: `Bearer ${a.api_key}`, upgrade: 'websocket', connection: 'Upgrade' }, 'TRACE');
    expect([trace.status, JSON.parse(trace.body).error.code, trace.allow]).toEqual([405, 'method_not_allowed', 'GET, HEAD']);
    // HEAD is one of the methods that 405 names: answered as the GET (426, no body), never 405.
    const head = await fetch(`${env.base}/v1/ws`, { method: 'HEAD', headers: { authorization: `Bearer ${a.api_key}` } });
    expect(head.status).toBe(426);
  });

  it("refuses another project's task exactly like a missing one, and never sends its data", async () => {
    const src = await source({ total: 300, delayMs: () => 50 });
    const taskId = await submit(a.api_key, { source_url: src.url });
    const spy = await client(b.api_key);
    spy.send({ subscribe: taskId });
    spy.send({ subscribe: 'tsk_does_not_exist' });
    const refused = await spy.next((m) => m.error?.subscribe === taskId);
    const missing = await spy.next((m) => m.error?.subscribe === 'tsk_does_not_exist');
    expect(refused.error).toEqual({ code: 'not_found', message: `task ${taskId} was not found`, subscribe: taskId });
    expect(missing.error.code).toBe(refused.error.code);
    spy.send({ subscribe: '*' });
    await spy.next((m) => m.subscribed === '*');
    await env.waitForTask(taskId, a.api_key);
    await new Promise((r) => setTimeout(r, 500));
    expect(JSON.stringify(spy.messages)).not.toContain(`"task_id":"${taskId}"`);
  });

  it('"*" follows every task of the project, including ones submitted later', async () => {
    const ws = await client(b.api_key);
    ws.send({ subscribe: '*' });
    await ws.next((m) => m.subscribed === '*');
    const src = await source({ total: 50 });
    const taskId = await submit(b.api_key, { source_url: src.url });
    const done = await ws.next(final(taskId));
    expect(done.event).toBe('task.succeeded');
    expect(ws.messages.filter((m) => m.task).every((m) => m.task.project_id === b.project_id)).toBe(true);
  });

  it('delivers the same events through a second API process (LISTEN/NOTIFY fan-out)', async () => {
    // A real `npm run api` process: only Postgres connects it to this process's worker.
    const api2 = await startApiProcess(env);
    try {
      const src = await source({ total: 400, delayMs: (r) => (r.pageSize === 1 ? 0 : 100) });
      const taskId = await submit(a.api_key, { source_url: src.url });
      const one = await client(a.api_key);
      const two = await client(a.api_key, { base: api2.base });
      one.send({ subscribe: taskId });
      two.send({ subscribe: '*' });
      const [d1, d2] = await Promise.all([one.next(final(taskId)), two.next(final(taskId))]);
      expect(d1.event).toBe('task.succeeded');
      expect(d2.event).toBe('task.succeeded');
      expect(two.messages.some((m) => m.task?.task_id === taskId && m.task.status === 'running')).toBe(true);
      // shutting that process down says goodbye to its sockets instead of hanging on them
      api2.child.kill('SIGTERM');
      expect(await two.closed).toEqual({ code: 1001, reason: 'server shutting down' });
      expect(await api2.exited).toBe(0);
    } finally {
      api2.child.kill('SIGKILL');
    }
  });

  it('limits subscriptions per connection', async () => {
    const src = await source({ total: 0 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await submit(a.api_key, { source_url: `${src.url}?n=${i}` }));
    const ws = await client(a.api_key);
    for (const id of ids) ws.send({ subscribe: id });
    const refused = await ws.next((m) => m.error?.code === 'too_many_subscriptions');
    expect(refused.error.subscribe).toBe(ids[3]);
    ws.send({ unsubscribe: ids[0] });
    await ws.next((m) => m.unsubscribed === ids[0]);
    ws.send({ subscribe: ids[3] });
    await ws.next((m) => m.subscribed === ids[3]);
  });

  it('closes a socket that sends an oversized frame (1009) or keeps sending garbage (1008)', async () => {
    const big = await client(a.api_key);
    big.send({ subscribe: 'x'.repeat(2000) });
    expect((await big.closed).code).toBe(1009);

    const noisy = await client(a.api_key);
    for (let i = 0; i < 5; i++) noisy.send(i % 2 ? 'not json' : { hello: 'world' });
    expect(await noisy.closed).toEqual({ code: 1008, reason: 'too many invalid messages' });
    expect(noisy.messages.filter((m) => m.error?.code === 'bad_message')).toHaveLength(5);
  });

  it('closes a connection that subscribes to nothing once it is idle', async () => {
    const ws = await client(a.api_key);
    const t0 = Date.now();
    expect(await ws.closed).toEqual({ code: 1000, reason: 'idle' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1300);
  });
});

/** An upgrade request as sent (fetch may not send Connection: upgrade); the refusal's status and body. */
function rawUpgrade(base: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; body: string; allow: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/v1/ws`, { method, headers });
    req.once('upgrade', () => reject(new Error('upgraded')));
    req.once('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body, allow: res.headers.allow }));
    });
    req.once('error', reject);
    req.end();
  });
}
