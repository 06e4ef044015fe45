// What an operator session's token reads of a task (docs/SECURITY.md#operator-sessions-files-not-plumbing): exactly
// the operator's view — its files and how far it is — in the list, one task, an action's answer and
// every WebSocket frame; never the source URL (whose query carries the source's credentials), the
// callback, the other recipients, the destination or the raw error text. The sockets are real:
// the route app served on a port of its own, with its WebSocket attached.
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getProject } from '../../domain/projects/projects.js';
import { createOperatorSession } from '../../domain/projects/sessions.js';
import { finishTask } from '../../domain/tasks/status.js';
import { type Client, connect } from '../support/ws-client.js';
import { type Project, type RouteApp, startRouteApp, taskBody } from '../support/route-app.js';

/** The operator's view, key by key (docs/api.md#what-an-operator-token-may-do). */
const OPERATOR_KEYS = ['created_at', 'error', 'expires_at', 'file_name', 'files', 'finished_at', 'operator_id', 'progress', 'stage', 'status', 'task_id', 'type'];
const FILE_KEYS = ['bytes', 'expires_at', 'name', 'rows', 'url'];
// What must never reach an operator: each is a distinct string, searched for in the whole answer.
const SECRET = 'sig-0f9e8d7c6b5a';
const CALLBACK = 'http://127.0.0.1:9/hook-2b3c';
const OTHER_RECIPIENT = 'boss-7a6b@example.com';
const RAW = 'ECONNREFUSED 10.1.2.3:5432 at pool.js:42';

let rt: RouteApp;
let a: Project;
let server: Server;
let base: string;
let token: string;
let destination: string;
const sockets: Client[] = [];
const ids: Record<'queued' | 'succeeded' | 'failed', string> = { queued: '', succeeded: '', failed: '' };

beforeAll(async () => {
  rt = await startRouteApp({ WS_IDLE_MS: '60000' });
  a = await rt.createProject({ name: 'a', callback_hosts: ['127.0.0.1'], email_domains: ['example.com'], destination_hosts: ['127.0.0.1'] });
  const dst = await rt.call('POST', '/v1/destinations', {
    token: a.api_key,
    body: { name: 'vault', kind: 's3', endpoint: 'http://127.0.0.1:9', region: 'us-east-1', bucket: 'exports', access_key_id: 'AKIA', secret_access_key: 'secret-key', path_style: true },
  });
  expect(dst.status, dst.text).toBe(201);
  destination = dst.json.destination_id;
  const body = (file_name: string) =>
    taskBody({ source_url: `http://127.0.0.1:9/rows?token=${SECRET}`, operator_id: 'alice', file_name, callback: CALLBACK, notify_email: ['alice@example.com', OTHER_RECIPIENT], destination_id: destination });
  for (const k of Object.keys(ids) as Array<keyof typeof ids>) ids[k] = (await rt.submit(a.api_key, body(k))).task_id;
  await rt.drained();
  await rt.succeed(ids.succeeded);
  await finishTask(rt.database.db, ids.failed, { status: 'failed', errorCode: 'source_unreachable', errorMessage: `${RAW} fetching ?token=${SECRET}` });
  token = (await rt.call('POST', '/v1/operator-sessions', { token: a.api_key, body: { operator_id: 'alice', permissions: ['pause'] } })).json.token;
  server = createAdaptorServer({ fetch: rt.app.fetch }) as Server;
  rt.realtime.attach(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.close();
  await new Promise((resolve) => server?.close(resolve));
  await rt?.close();
});

/** Nothing the operator must not see, anywhere in the text of an answer or a frame. */
function expectNoPlumbing(text: string): void {
  for (const leak of [SECRET, CALLBACK, OTHER_RECIPIENT, RAW, destination, 'source_url', 'callback', 'notify_email', 'destination', 'schedule_id', 'sha256']) {
    expect(text, `${leak} in ${text.slice(0, 400)}`).not.toContain(leak);
  }
}

function expectOperatorView(task: any): void {
  expect(Object.keys(task).sort()).toEqual(OPERATOR_KEYS);
  for (const f of task.files) expect(Object.keys(f).sort()).toEqual(FILE_KEYS);
}

describe("an operator token's view of a task", () => {
  it('lists exactly the operator view, a failure as its code and sentence', async () => {
    const list = await rt.call('GET', '/v1/tasks', { token });
    expect(list.status).toBe(200);
    expect(list.json.items.map((t: any) => t.task_id).sort()).toEqual(Object.values(ids).sort());
    for (const t of list.json.items) expectOperatorView(t);
    expectNoPlumbing(list.text);
    const failed = list.json.items.find((t: any) => t.task_id === ids.failed);
    expect(failed.error).toEqual({ code: 'source_unreachable', message: 'The data source could not be reached.' });
    const done = list.json.items.find((t: any) => t.task_id === ids.succeeded);
    expect(done.files).toEqual([{ name: 'export.csv', bytes: 16, rows: 2, url: expect.stringMatching(/^http:\/\/dc\.test\/v1\/files\//), expires_at: expect.any(String) }]);
  });

  it('reads each task, and answers an action, in the operator view', async () => {
    for (const id of Object.values(ids)) {
      const one = await rt.call('GET', `/v1/tasks/${id}`, { token });
      expect(one.status).toBe(200);
      expectOperatorView(one.json);
      expectNoPlumbing(one.text);
    }
    const paused = await rt.call('POST', `/v1/tasks/${ids.queued}/pause`, { token });
    expect(paused.status, paused.text).toBe(202);
    expectOperatorView(paused.json);
    expectNoPlumbing(paused.text);
    rt.temporal.closeRun(ids.queued);
    expect((await rt.call('POST', `/v1/tasks/${ids.queued}/resume`, { token })).status).toBe(202);
  });

  it('sends every WebSocket frame in the operator view', async () => {
    const socket = await connect(base, { token, header: true });
    sockets.push(socket);
    socket.send({ subscribe: '*' });
    for (const id of Object.values(ids)) socket.send({ subscribe: id });
    for (const id of Object.values(ids)) await socket.next((m) => m.task?.task_id === id);
    // A change while it watches: the queued task is cancelled (the project key), and its event arrives.
    expect((await rt.call('POST', `/v1/tasks/${ids.queued}/cancel`, { token: a.api_key })).status).toBe(202);
    await socket.next((m) => m.event === 'task.cancelled' && m.task.task_id === ids.queued);
    const frames = socket.messages.filter((m) => m.task);
    expect(frames.length).toBeGreaterThanOrEqual(4);
    for (const f of frames) expectOperatorView(f.task);
    expectNoPlumbing(JSON.stringify(socket.messages));
  });

  it("sends a session of one task (an e-mail's link) that task's frames alone", async () => {
    const project = (await getProject(rt.database.db, a.project_id))!;
    const one = (await createOperatorSession(rt.database.db, project, { operatorId: 'alice', taskId: ids.succeeded, expiresIn: 3600, permissions: ['download'], locale: 'en' })).token;
    const socket = await connect(base, { token: one, header: true });
    sockets.push(socket);
    socket.send({ subscribe: '*' });
    socket.send({ subscribe: ids.failed });
    expect((await socket.next((m) => m.error?.subscribe === ids.failed)).error.code).toBe('not_found');
    socket.send({ subscribe: ids.succeeded });
    await socket.next((m) => m.task?.task_id === ids.succeeded);
    // Another task of the same operator changes: the operator's own session hears it on its
    // project-wide watch; the same notice reaches this socket's watch, which does not send it.
    const watcher = await connect(base, { token, header: true });
    sockets.push(watcher);
    watcher.send({ subscribe: '*' });
    await watcher.next((m) => m.subscribed === '*');
    const late = await rt.submit(a.api_key, taskBody({ operator_id: 'alice', file_name: 'late' }));
    await rt.drained();
    expect((await rt.call('POST', `/v1/tasks/${late.task_id}/cancel`, { token: a.api_key })).status).toBe(202);
    await watcher.next((m) => m.event === 'task.cancelled' && m.task.task_id === late.task_id);
    socket.send({ subscribe: ids.succeeded }); // answered in order: once this is back, any earlier frame is too
    await socket.next((m) => m.subscribed === ids.succeeded, 10_000, socket.messages.length);
    expect(new Set(socket.messages.filter((m) => m.task).map((m) => m.task.task_id))).toEqual(new Set([ids.succeeded]));
  });

  it('is a schema of its own in the OpenAPI document, with exactly these fields', async () => {
    const doc = (await rt.call('GET', '/openapi.json')).json;
    const schema = doc.components.schemas.OperatorTask;
    expect(Object.keys(schema.properties).sort()).toEqual(OPERATOR_KEYS);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties.files.items.properties).sort()).toEqual(FILE_KEYS);
    expect(doc.paths['/v1/tasks/{task_id}'].get.responses['200'].description).toContain('OperatorTask');
  });

  it('leaves the project key the whole task', async () => {
    const one = await rt.call('GET', `/v1/tasks/${ids.failed}`, { token: a.api_key });
    expect(one.json).toMatchObject({ source_url: expect.stringContaining(SECRET), callback: CALLBACK, notify_email: ['alice@example.com', OTHER_RECIPIENT], destination_id: destination });
    expect(one.json.error.message).toContain(RAW);
  });
});
