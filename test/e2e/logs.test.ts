// Logs (docs/operations.md#logs): one JSON object per line; each API request once with method, route, status,
// latency, request_id and project_id; activity lines with task_id and the activity, the Temporal
// SDK's own lines among them; and never a secret: API keys, webhook secrets, link signatures,
// access tokens, the admin token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs, log, scrub } from '../../platform/logger.js';
import { startApiProcess } from '../support/api-process.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type SourceServer, startSource } from '../support/source-server.js';
import { connect } from '../support/ws-client.js';

let env: TestEnv;
let src: SourceServer;
let receiver: Receiver | undefined;
const lines: string[] = [];
let release: () => void;

beforeAll(async () => {
  env = await startTestEnv();
  src = await startSource({ total: 700 });
  release = captureLogs((line) => lines.push(line));
  log.level = 'debug';
});

afterAll(async () => {
  release?.();
  log.level = 'warn';
  await Promise.all([src?.close(), receiver?.close()]);
  await env?.close();
});

const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, any>);

describe('log lines', () => {
  it('logs requests and activities with their ids, and no secret, through a whole export', async () => {
    const created = await env.api('POST', '/v1/projects', { token: ADMIN, body: { name: 'logged', source_hosts: [src.host], callback_hosts: ['127.0.0.1'] } });
    const { project_id, api_key, webhook_secret } = created.json;
    receiver = await startReceiver(webhook_secret);
    const ws = await connect(env.base, { token: api_key });
    ws.send({ subscribe: '*' });
    const res = await env.api('POST', '/v1/tasks', { token: api_key, body: { source_url: src.url, operator_id: 'u42', page_size: 100, callback: receiver.url } });
    expect(res.status).toBe(202);
    const taskId = res.json.task_id as string;
    const task = await env.waitForTask(taskId, api_key);
    expect(task.status).toBe('succeeded');
    const link = new URL(task.files[0].url);
    expect((await fetch(link)).status).toBe(200);
    await receiver.waitFor(1);
    await ws.next((m) => m.event === 'task.succeeded');
    ws.close();
    const rotated = await env.api('POST', `/v1/projects/${project_id}/rotate-key`, { token: ADMIN });
    expect(rotated.status).toBe(200);
    const notFound = await env.api('GET', '/v1/nowhere?access_token=abc123secretvalue', { token: api_key });
    expect(notFound.status).toBe(404);
    // Activity lines go through the SDK's logger, which batches for 100 ms.
    await new Promise((r) => setTimeout(r, 500));

    const all = parsed();
    expect(all.length).toBeGreaterThan(10);
    for (const l of all) expect(l).toMatchObject({ level: expect.any(String), time: expect.any(String), msg: expect.any(String) });

    const requests = all.filter((l) => l.component === 'api' && l.msg === 'request');
    const submit = requests.find((l) => l.method === 'POST' && l.route === '/v1/tasks');
    expect(submit).toMatchObject({ status: 202, project_id, request_id: expect.any(String), latency_ms: expect.any(Number) });
    expect(submit!.request_id).toBe(res.headers.get('x-request-id'));
    expect(requests.filter((l) => l.request_id === submit!.request_id)).toHaveLength(1);
    expect(requests.find((l) => l.route === '/v1/tasks/:task_id' && l.method === 'GET')).toMatchObject({ status: 200, project_id });
    expect(requests.find((l) => l.route === '/v1/projects' && l.method === 'POST')).toMatchObject({ status: 201, project_id: null, admin: true });
    expect(requests.find((l) => l.route === '/v1/files/:task_id/:name')).toMatchObject({ status: 200 });
    expect(requests.find((l) => l.status === 404 && l.route === 'unmatched')).toMatchObject({ error_code: 'not_found' });

    const mine = all.filter((l) => l.task_id === taskId);
    const activities = new Set(mine.map((l) => l.activity).filter(Boolean));
    for (const a of ['startTask', 'probeSource', 'fetchPages', 'renderFile', 'publishFiles', 'completeTask']) expect(activities, a).toContain(a);
    for (const l of mine.filter((x) => x.activity)) expect(l.component).toMatch(/^temporal\./);
    expect(mine.find((l) => l.msg === 'export succeeded')).toMatchObject({ activity: 'completeTask', project_id, operator_id: 'u42', rows: 700, level: 'info' });
    // The callback's own workflow and activity are the task's too.
    expect(mine.find((l) => l.activity === 'deliverCallback')).toBeDefined();

    const text = lines.join('\n');
    const secrets = { ADMIN, api_key, new_api_key: rotated.json.api_key, webhook_secret, link_secret: env.config.LINK_SECRET!, sig: link.searchParams.get('sig')!, access_token: 'abc123secretvalue' };
    for (const [name, value] of Object.entries(secrets)) expect(text.includes(value), `${name} was logged`).toBe(false);
    // A task token completes an activity: a capability, redacted like the rest.
    expect(text).toContain('"taskToken":"[Redacted]"');
    expect(text).not.toMatch(/taskToken":"(?!\[Redacted\])/);
  });

  it('redacts secret fields and scrubs secret shapes from any line', () => {
    const got: string[] = [];
    const stop = captureLogs((l) => got.push(l));
    try {
      log.info(
        { api_key: 'dck_abcdefghijklmnop', headers: { authorization: 'Bearer adm_xyz' }, project: { webhook_secret: 'whsec_c2VjcmV0c2VjcmV0' }, note: 'x' },
        'key dck_ZZZZZZZZZZZZZZZZ, secret whsec_QUJDREVGR0hJSktM, link /v1/files/t/a.csv?expires=1&sig=deadbeef00, ws ?access_token=tok123456 and Bearer tokentoken',
      );
      log.error({ err: new Error(`failed with ${ADMIN}`) }, 'boom');
    } finally {
      stop();
    }
    const text = got.join('');
    for (const secret of ['dck_abcdefghijklmnop', 'adm_xyz', 'whsec_c2VjcmV0c2VjcmV0', 'dck_ZZZZZZZZZZZZZZZZ', 'whsec_QUJDREVGR0hJSktM', 'deadbeef00', 'tok123456', 'tokentoken', ADMIN]) {
      expect(text, secret).not.toContain(secret);
    }
    const [first] = got.map((l) => JSON.parse(l));
    expect(first).toMatchObject({ api_key: '[Redacted]', headers: { authorization: '[Redacted]' }, project: { webhook_secret: '[Redacted]' }, note: 'x' });
    expect(first.msg).toContain('sig=[Redacted]');
    expect(scrub('plain text stays')).toBe('plain text stays');
  });
});

describe('a process on a pipe', () => {
  it('writes nothing but JSON lines to stdout, at LOG_LEVEL', async () => {
    const api = await startApiProcess(env, { LOG_LEVEL: 'info' });
    try {
      expect((await fetch(`${api.base}/healthz`)).status).toBe(200);
      expect((await fetch(`${api.base}/v1/tasks`, { headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(403);
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await api.stop();
    }
    const out = api.output().split('\n').filter(Boolean);
    const json = out.map((l) => JSON.parse(l) as Record<string, any>);
    expect(json.find((l) => l.route === '/healthz')).toMatchObject({ method: 'GET', status: 200, level: 'info' });
    expect(json.find((l) => l.route === '/v1/tasks' && l.status === 403)).toMatchObject({ admin: true, error_code: 'forbidden' });
    expect(api.output()).not.toContain(ADMIN);
  });
});
