// WebSocket under pressure (issue 15): a final event is never lost silently — each of 500 clients
// that do not read while an export runs either gets it or is closed with 1013 — and a full API
// process answers a new upgrade with 503, not a reset.
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let small: TestEnv;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  [env, small] = await Promise.all([
    // Progress as often as the hub allows, so slow readers fall behind.
    startTestEnv({ WS_PROGRESS_INTERVAL_MS: '10', WS_MAX_BUFFERED_BYTES: '4096' }),
    startTestEnv({ WS_MAX_CONNECTIONS: '2' }),
  ]);
});

afterAll(async () => {
  await closeSources();
  await Promise.all([env?.close(), small?.close()]);
});

interface Slow {
  ws: WebSocket;
  frames: string[];
  closed: Promise<{ code: number; reason: string }>;
}

async function slowClient(base: string, key: string): Promise<Slow> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/ws?access_token=${key}`);
  const frames: string[] = [];
  ws.on('message', (d) => frames.push(d.toString()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ subscribe: '*' }));
  while (!frames.some((f) => f.includes('"subscribed"'))) await new Promise((r) => setTimeout(r, 10));
  // From here on it reads nothing: the kernel buffers fill, then the server's.
  (ws as unknown as { _socket: { pause(): void } })._socket.pause();
  return { ws, frames, closed };
}

it('gives each of 500 non-reading clients the final event or closes it with 1013', async () => {
  const { api_key: key } = await env.createProject();
  const clients: Slow[] = [];
  for (let i = 0; i < 500; i += 50) clients.push(...(await Promise.all(Array.from({ length: 50 }, () => slowClient(env.base, key)))));
  const src = await source({ total: 30_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 5) });
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op-ws', page_size: 100 } });
  const taskId = res.json.task_id as string;
  expect((await env.waitForTask(taskId, key, undefined, 60_000)).status).toBe('succeeded');

  for (const c of clients) (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  const final = (c: Slow) => c.frames.some((f) => f.includes('"task.succeeded"') && f.includes(taskId));
  const outcomes = await Promise.all(
    clients.map(async (c) => {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        if (final(c)) return 'received';
        const closed = await Promise.race([c.closed, new Promise<null>((r) => setTimeout(() => r(null), 50))]);
        if (closed) return final(c) ? 'received' : `closed ${closed.code} ${closed.reason}`;
      }
      return 'nothing';
    }),
  );
  const tally = outcomes.reduce<Record<string, number>>((t, o) => ({ ...t, [o.replace(/ (tsk_\w+)/, '')]: (t[o.replace(/ (tsk_\w+)/, '')] ?? 0) + 1 }), {});
  for (const o of outcomes) expect(o === 'received' || o.startsWith('closed 1013 too slow to receive task.'), `${o} (all: ${JSON.stringify(tally)})`).toBe(true);
  for (const c of clients) c.ws.terminate();
}, 120_000);

it('closes a client too slow to take a final event with 1013, once several MB wait unread', async () => {
  // The kernel absorbs about 4 MB a socket on loopback before the server's own buffer grows, so
  // this needs volume: 30 exports at once, each frame ~8 KB (a 4 KB source_url and callback).
  const { api_key: key } = await env.createProject({ max_running_tasks: 30, submit_per_minute: 1000, callback_hosts: ['127.0.0.1'] });
  const clients = await Promise.all([1, 2, 3].map(() => slowClient(env.base, key)));
  const src = await source({ total: 25_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 30) });
  const pad = 'x'.repeat(3900);
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const body = { source_url: `${src.url}?n=${i}&pad=${pad}`, callback: `http://127.0.0.1:9/hook?pad=${pad}`, operator_id: 'op-ws', page_size: 100 };
    ids.push((await env.api('POST', '/v1/tasks', { token: key, body })).json.task_id);
  }
  for (const id of ids) expect((await env.waitForTask(id, key, undefined, 90_000)).status).toBe('succeeded');
  for (const c of clients) (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  const results = await Promise.all(clients.map((c) => Promise.race([c.closed, new Promise<null>((r) => setTimeout(() => r(null), 20_000))])));
  for (const [i, r] of results.entries()) {
    const finals = ids.filter((id) => clients[i]!.frames.some((f) => f.includes('"task.succeeded"') && f.includes(id))).length;
    // Every final event either arrived or the client was told to reconnect: never silence.
    if (finals < ids.length) expect(r, `client ${i}: ${finals} of ${ids.length} final events and no close`).toMatchObject({ code: 1013 });
  }
  expect(results.some((r) => r?.code === 1013), 'no client was slow enough to be closed: the path is untested').toBe(true);
}, 150_000);

it('answers 503 too_many_connections at the upgrade once the process is full', async () => {
  const { api_key: key } = await small.createProject();
  const url = `${small.base.replace(/^http/, 'ws')}/v1/ws?access_token=${key}`;
  const open = await Promise.all([1, 2].map(() => new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => resolve(ws)).once('error', reject);
  })));
  const refused = await new Promise<{ status: number; body: string; retryAfter: string | undefined }>((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('open', () => reject(new Error('a third connection was accepted')));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString())).on('end', () => resolve({ status: res.statusCode!, body, retryAfter: res.headers['retry-after'] as string | undefined }));
    });
  });
  expect(refused.status).toBe(503);
  expect(JSON.parse(refused.body).error.code).toBe('too_many_connections');
  expect(refused.retryAfter).toBe('5');
  for (const ws of open) ws.close();
});
