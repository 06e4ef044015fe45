// Operator sessions end to end (real Temporal, a real source, the typed client): one operator's
// token sees and acts on that operator's tasks only, over HTTP and the WebSocket, and stops
// working at once when revoked and after a key rotation's grace.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DownloadCenter, DownloadCenterError } from '../../client/src/index.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';
import { type Client, connect } from '../support/ws-client.js';

let env: TestEnv;
let project: { project_id: string; api_key: string };
let dc: DownloadCenter;
const { source, closeSources } = sourcePool();
const clients: Client[] = [];

beforeAll(async () => {
  env = await startTestEnv({ WS_IDLE_MS: '60000', WS_AUTH_RECHECK_MS: '600000', KEY_ROTATION_GRACE_SECONDS: '2' });
  project = await env.createProject({ source_hosts: ['127.0.0.1'] });
  dc = new DownloadCenter({ baseUrl: env.base, apiKey: project.api_key });
});

afterAll(async () => {
  for (const c of clients) c.close();
  await closeSources();
  await env?.close();
});

const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);
const status = async (p: Promise<unknown>) => p.then(() => 200, (err: unknown) => (err instanceof DownloadCenterError ? err.status : Promise.reject(err)));

it("an operator's token shows and acts on that operator's tasks only, and ends when revoked", async () => {
  const session = await dc.createOperatorSession({ operator_id: 'alice', permissions: ['cancel'], locale: 'zh-CN' });
  expect(session.url).toBe(`${env.config.publicBaseUrl}/operator#token=${session.token}`);
  const alice = new DownloadCenter({ baseUrl: env.base, apiKey: session.token });

  const socket = await connect(env.base, { token: session.token, header: true });
  clients.push(socket);
  socket.send({ subscribe: '*' });
  await socket.next((m) => m.subscribed === '*');

  const src = await source({ total: 300, delayMs: () => 50 });
  const mine = await dc.submit({ source_url: src.url, operator_id: 'alice', page_size: 100 });
  const theirs = await dc.submit({ source_url: src.url, operator_id: 'bob', page_size: 100 });
  await env.waitForTask(mine.task_id, project.api_key, (t) => t.status === 'succeeded');
  await env.waitForTask(theirs.task_id, project.api_key, (t) => t.status === 'succeeded');
  await socket.next((m) => m.event === 'task.succeeded' && m.task.task_id === mine.task_id);
  // Bob's task ended too, yet nothing of it reached Alice's socket.
  expect(socket.messages.filter((m) => m.task?.task_id === theirs.task_id)).toEqual([]);
  socket.send({ subscribe: theirs.task_id });
  expect((await socket.next((m) => m.error?.subscribe === theirs.task_id)).error.code).toBe('not_found');

  // HTTP, through the typed client.
  const listed = [];
  for await (const t of alice.list()) listed.push(t.task_id);
  expect(listed).toEqual([mine.task_id]);
  expect((await alice.get(mine.task_id)).operator_id).toBe('alice');
  expect(await status(alice.get(theirs.task_id))).toBe(404);
  expect(await status(alice.submit({ source_url: src.url, operator_id: 'alice' }))).toBe(403);
  expect(await status(alice.list({ operator_id: 'bob' }).next())).toBe(403);
  expect((await env.api('GET', `/v1/tasks/${mine.task_id}/download`, { token: session.token })).status).toBe(200);

  // A permitted cancel works; retry was not granted.
  const slow = await source({ total: 3000, delayMs: () => 60_000 });
  const long = await dc.submit({ source_url: slow.url, operator_id: 'alice', page_size: 100 });
  expect((await alice.cancel(long.task_id)).status).toBe('cancelled');
  expect(await status(alice.retry(long.task_id))).toBe(403);

  // Revoked: 401 at once, and the socket closes with 4401 (its timer is ten minutes away).
  await dc.revokeOperatorSession(session.session_id);
  expect(await status(alice.get(mine.task_id))).toBe(401);
  expect((await within(socket.closed, 3000)).code).toBe(4401);
});

it("a key rotation ends the project's sessions once its grace is over", async () => {
  const own = await env.createProject({ source_hosts: ['127.0.0.1'] });
  const client = new DownloadCenter({ baseUrl: env.base, apiKey: own.api_key });
  const session = await client.createOperatorSession({ operator_id: 'carol' });
  const carol = new DownloadCenter({ baseUrl: env.base, apiKey: session.token });
  const rotated = await env.api('POST', `/v1/projects/${own.project_id}/rotate-key`, { token: ADMIN });
  expect(rotated.status).toBe(200);
  expect(await status(carol.list().next())).toBe(200); // within KEY_ROTATION_GRACE_SECONDS (2 s)
  await new Promise((r) => setTimeout(r, 2500));
  expect(await status(carol.list().next())).toBe(401);
  // A session made with the new key is not ended by the rotation before it.
  const fresh = await new DownloadCenter({ baseUrl: env.base, apiKey: rotated.json.api_key }).createOperatorSession({ operator_id: 'carol' });
  expect(await status(new DownloadCenter({ baseUrl: env.base, apiKey: fresh.token }).list().next())).toBe(200);
});
