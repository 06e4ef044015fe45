// Output and input hardening end to end (issue 9, part 6): CSV cells and header cells that a
// spreadsheet would run as formulas are neutralised in a real export; a NUL or an unpaired surrogate
// in any text field, nested template title or query filter answers 422 naming the field (never 500);
// a WebSocket upgrade from a foreign Origin is refused with 403 while same-origin, listed and
// Origin-less upgrades still work.
import { connect as tcp } from 'node:net';
import { parse } from 'csv-parse/sync';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();
const LISTED = 'https://console.example.com';

beforeAll(async () => {
  env = await startTestEnv({ WS_ALLOWED_ORIGINS: `${LISTED}, http://localhost:3000` });
  ({ api_key: key } = await env.createProject());
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

function expect422(res: { status: number; json: any }, field: string, message: RegExp = /NUL/) {
  expect(res.status, JSON.stringify(res.json)).toBe(422);
  expect(res.json.error).toMatchObject({ code: 'validation_failed', request_id: expect.any(String) });
  expect(res.json.error.details).toContainEqual({ field, message: expect.stringMatching(message) });
  expect(res.json.error.message).toContain(field);
}

describe('CSV formula neutralisation in a real export', () => {
  it('escapes every formula form in data cells and header cells, and leaves plain numbers', async () => {
    const forms = { eq: '=1+1', plus: '+cmd', minus: '-2+3', at: '@SUM(A1)', tab: '\t=1', cr: '\r=1', lf: '\n=HYPERLINK("x")', fw_eq: '＝1+1', fw_plus: '＋1', fw_minus: '－1', fw_at: '＠SUM(A1)' };
    const template = [
      ...Object.keys(forms).map((name) => ({ name, title: name === 'lf' ? '\n=title' : name === 'fw_eq' ? '＝title' : name })),
      { name: 'n', title: '@header' },
      { name: 's', title: '－12.5' },
    ];
    const src = await source({ total: 2, row: () => ({ ...forms, n: -12.5, s: '-12.5' }), firstExtras: { template } });
    const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op-csv' } });
    expect(res.status).toBe(202);
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('succeeded');
    const text = Buffer.from(await (await fetch(task.files[0].url)).arrayBuffer()).toString('utf8').slice(1);
    const [head, ...rows] = parse(text) as string[][];
    expect(head).toEqual([...Object.keys(forms).map((n) => (n === 'lf' ? "'\n=title" : n === 'fw_eq' ? "'＝title" : n)), "'@header", "'－12.5"]);
    for (const row of rows) expect(row).toEqual([...Object.values(forms).map((v) => `'${v}`), '-12.5', '-12.5']);
  });
});

describe('bad text is a 422 naming the field', () => {
  const body = (extra: Record<string, unknown>) => ({ source_url: 'http://127.0.0.1:9/x', operator_id: 'op-nul', ...extra });

  it.each([
    ['operator_id', { operator_id: 'op\u0000' }, 'operator_id', /NUL/],
    ['title', { title: 'Orders \u0000', type: 'excel' }, 'title', /NUL/],
    ['summary, a lone surrogate', { summary: '<b>\ud800</b>', type: 'excel' }, 'summary', /unpaired/],
    ['a nested template title', { type: 'excel', template: [{ name: 'a', title: 'A' }, { name: 'g', title: 'G', children: [{ name: 'b', title: 'B\u0000' }] }] }, 'template.1.children.0.title', /NUL/],
    ['file_name (which sanitising would have hidden)', { file_name: 'x\u0000y' }, 'file_name', /NUL/],
    ['source_url', { source_url: 'http://127.0.0.1:9/x?a=\u0000' }, 'source_url', /NUL/],
  ])('POST /v1/tasks: %s', async (_name, extra, field, message) => {
    expect422(await env.api('POST', '/v1/tasks', { token: key, body: body(extra) }), field, message);
  });

  it('POST /v1/tasks/sync and POST /v1/projects likewise', async () => {
    expect422(await env.api('POST', '/v1/tasks/sync', { token: key, body: body({ operator_id: '\u0000' }) }), 'operator_id');
    expect422(await env.api('POST', '/v1/projects', { token: ADMIN, body: { name: 'p\u0000', source_hosts: ['127.0.0.1'] } }), 'name');
    // a lone surrogate written as a JSON escape, and raw bytes that are not UTF-8
    expect422(await env.api('POST', '/v1/tasks', { token: key, raw: '{"source_url":"http://127.0.0.1:9/x","operator_id":"a\\udc00"}', headers: { 'content-type': 'application/json' } }), 'operator_id', /unpaired/);
    const res = await fetch(`${env.base}/v1/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"source_url":"http://127.0.0.1:9/x","operator_id":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
    });
    expect422({ status: res.status, json: await res.json() }, 'operator_id', /not valid UTF-8/);
  });

  it('list and count filters: a NUL or an undecodable escape in a query parameter', async () => {
    expect422(await env.api('GET', '/v1/tasks?operator_id=op%00', { token: key }), 'operator_id');
    expect422(await env.api('GET', '/v1/tasks/counts?operator_id=%00', { token: key }), 'operator_id');
    expect422(await env.api('GET', '/v1/tasks?operator_id=%ED%A0%80', { token: key }), 'operator_id', /not valid UTF-8/);
    expect((await env.api('GET', '/v1/tasks?operator_id=%E5%AE%A2', { token: key })).status).toBe(200);
  });

  it('a NUL in the Idempotency-Key header never reaches the app: the HTTP parser refuses it with 400, and the server carries on', async () => {
    // Headers are bytes, not UTF-16 (no surrogates), and Node refuses a NUL or other control in one.
    const port = new URL(env.base).port;
    const json = JSON.stringify(body({}));
    const answer = await new Promise<string>((resolve, reject) => {
      const s = tcp(Number(port), '127.0.0.1', () => {
        s.write(`POST /v1/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nIdempotency-Key: k\0ey\r\nContent-Length: ${json.length}\r\nConnection: close\r\n\r\n${json}`);
      });
      let got = '';
      s.on('data', (b) => (got += b.toString()));
      s.on('end', () => resolve(got));
      s.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect((await env.api('GET', '/v1/tasks', { token: key })).status).toBe(200);
  });

  it('a WebSocket subscribe with a NUL is an invalid message, not a broken connection', async () => {
    const ws = new WebSocket(`${env.base.replace(/^http/, 'ws')}/v1/ws?access_token=${key}`);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const reply = new Promise<any>((resolve) => ws.once('message', (m) => resolve(JSON.parse(m.toString()))));
    ws.send(JSON.stringify({ subscribe: 'tsk_\u0000' }));
    expect((await reply).error.code).toBe('bad_message');
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });
});

describe('WebSocket Origin', () => {
  /** Tries an upgrade; 'open' or the refusal's status and JSON body. */
  async function upgrade(origin: string | undefined, token: string | undefined = key): Promise<'open' | { status: number; body: any }> {
    const url = `${env.base.replace(/^http/, 'ws')}/v1/ws${token ? `?access_token=${token}` : ''}`;
    const ws = new WebSocket(url, origin === undefined ? {} : { origin });
    return new Promise((resolve, reject) => {
      ws.once('open', () => {
        ws.close();
        resolve('open');
      });
      ws.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (b: Buffer) => (text += b.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
      });
      ws.once('error', reject);
    });
  }

  it('refuses a foreign origin with 403 forbidden (JSON) before the upgrade, and before the key is looked at', async () => {
    for (const origin of ['https://evil.example', 'http://127.0.0.1:1', 'null', `https://console.example.com.evil.example`]) {
      const got = await upgrade(origin);
      expect(got, origin).toMatchObject({ status: 403, body: { error: { code: 'forbidden', request_id: expect.any(String) } } });
      expect((got as { body: any }).body.error.message).toContain('WS_ALLOWED_ORIGINS');
    }
    expect(await upgrade('https://evil.example', undefined)).toMatchObject({ status: 403 });
  });

  it('accepts no Origin (non-browser clients), its own origin, PUBLIC_BASE_URL and the listed origins', async () => {
    const port = new URL(env.base).port;
    expect(await upgrade(undefined)).toBe('open');
    expect(await upgrade(`http://127.0.0.1:${port}`)).toBe('open');
    expect(await upgrade(`http://localhost:${port}`)).toBe('open'); // PUBLIC_BASE_URL's default
    expect(await upgrade(LISTED)).toBe('open');
    expect(await upgrade('HTTPS://Console.Example.com:443')).toBe('open');
    expect(await upgrade('http://localhost:3000')).toBe('open');
  });

  it('answers a refused key at the upgrade with the usual JSON error too', async () => {
    expect(await upgrade(undefined, 'dck_not-a-key')).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
  });
});
