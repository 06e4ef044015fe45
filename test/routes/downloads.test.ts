// The record of downloads in process (route-app.ts; docs/downloads.md): each way a file is handed
// out leaves a row saying who, how and how much — a project key's download, a signed link of the
// project's, an operator session's link (signed with its session, which cannot be swapped) — and
// the lists read them newest first, cursor-paged, each tenant its own, an operator session its own.
// Real sockets, aborted downloads and the client address: test/e2e/downloads.test.ts.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_AGENT_MAX } from '../../domain/downloads/records.js';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { type Project, type RouteApp, startWithTwoProjects, taskBody } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

const CSV = 'id,name\n1,客户 1\n2,客户 2\n';
const BYTES = Buffer.byteLength(CSV);

let rt: RouteApp;
let a: Project;
let b: Project;
let taskId: string;
let operatorToken: string;

type Item = { download_id: string; task_id: string; file: string; at: string; by: { kind: string; id: string | null; session_id?: string }; via: string; ip: string; user_agent: string; range: string | null; bytes: number; complete: boolean };

beforeAll(async () => {
  ({ rt, a, b } = await startWithTwoProjects());
  taskId = (await rt.submit(a.api_key, taskBody({ operator_id: 'alice' }))).task_id;
  await rt.drained();
  await rt.succeed(taskId, CSV);
  operatorToken = (await rt.call('POST', '/v1/operator-sessions', { token: a.api_key, body: { operator_id: 'alice' } })).json.token;
});
afterAll(() => rt?.close());

const pathOf = (url: string) => url.slice(new URL(url).origin.length);

/** The task's downloads once `n` are recorded (a record is written as its response ends, after the client read it). */
async function recorded(n: number, id = taskId): Promise<Item[]> {
  for (let i = 0; i < 200; i++) {
    const res = await rt.call('GET', `/v1/tasks/${id}/downloads?limit=100`, { token: a.api_key });
    expect(res.status, res.text).toBe(200);
    if (res.json.items.length >= n) return res.json.items;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`fewer than ${n} downloads recorded`);
}

describe('each way a file is handed out is recorded', () => {
  it("a project key's download: by the project, via the API, whole, with the user agent bounded", async () => {
    const res = await rt.call('GET', `/v1/tasks/${taskId}/download`, { token: a.api_key, headers: { 'user-agent': `curl/8 ${'x'.repeat(2000)}` } });
    expect(res.text).toBe(CSV);
    const [d] = await recorded(1);
    expect(d).toMatchObject({ task_id: taskId, file: 'export.csv', by: { kind: 'project', id: a.project_id }, via: 'api', bytes: BYTES, complete: true });
    expect(d!.by).not.toHaveProperty('session_id');
    expect(d!.user_agent.startsWith('curl/8 xxx')).toBe(true);
    expect(d!.user_agent).toHaveLength(USER_AGENT_MAX);
    // In process there is no socket: no address rather than an invented one.
    expect(d!.ip).toBe('');
  });

  it("the project's signed link: by a link, nobody signed in", async () => {
    const task = (await rt.call('GET', `/v1/tasks/${taskId}`, { token: a.api_key })).json;
    expect(task.files[0].url).not.toContain('by=');
    expect((await rt.call('GET', pathOf(task.files[0].url), { headers: { 'user-agent': 'Mozilla/5.0' } })).text).toBe(CSV);
    const [d] = await recorded(2);
    expect(d).toMatchObject({ by: { kind: 'link', id: null }, via: 'link', user_agent: 'Mozilla/5.0', bytes: BYTES, complete: true });
  });

  it("an operator session's link (their center, an e-mail's link) is theirs, and its session cannot be swapped", async () => {
    const task = (await rt.call('GET', `/v1/tasks/${taskId}`, { token: operatorToken })).json;
    const url = new URL(task.files[0].url);
    const session = url.searchParams.get('by')!;
    expect(session).toMatch(/^ops_/);
    expect((await rt.call('GET', pathOf(url.href))).text).toBe(CSV);
    const [d] = await recorded(3);
    expect(d).toMatchObject({ by: { kind: 'operator', id: 'alice', session_id: session }, via: 'link', complete: true });
    // The session is signed: another one's id, or none at all, makes a bad signature.
    url.searchParams.set('by', 'ops_someoneelse');
    expectError(await rt.call('GET', pathOf(url.href)), 403, 'invalid_signature');
    url.searchParams.delete('by');
    expectError(await rt.call('GET', pathOf(url.href)), 403, 'invalid_signature');
    url.searchParams.set('by', 'ops_\u0000');
    expectError(await rt.call('GET', pathOf(url.href)), 403, 'invalid_signature');
  });

  it("an operator token's own download through the API is theirs too", async () => {
    expect((await rt.call('GET', `/v1/tasks/${taskId}/download`, { token: operatorToken })).text).toBe(CSV);
    const [d] = await recorded(4);
    expect(d).toMatchObject({ by: { kind: 'operator', id: 'alice', session_id: expect.stringMatching(/^ops_/) }, via: 'api' });
  });

  it('a HEAD reads nothing and records nothing; a refused download records nothing', async () => {
    const head = await rt.app.request(`/v1/tasks/${taskId}/download`, { method: 'HEAD', headers: { authorization: `Bearer ${a.api_key}` } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(BYTES));
    expectError(await rt.call('GET', `/v1/tasks/${taskId}/download`, { token: b.api_key }), 404, 'not_found');
    await new Promise((r) => setTimeout(r, 100));
    expect(await recorded(4)).toHaveLength(4);
  });
});

describe('a byte range (Range), so a download can resume', () => {
  const whole = Buffer.from(CSV);
  const ranged = (range: string, extra: Record<string, string> = {}) =>
    rt.app.request(`/v1/tasks/${taskId}/download`, { headers: { authorization: `Bearer ${a.api_key}`, range, ...extra } });

  it('answers 206 with the part asked for, and records the part and its bytes, not complete', async () => {
    const n = (await recorded(4)).length;
    const res = await ranged('bytes=2-9');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes 2-9/${BYTES}`);
    expect(res.headers.get('content-length')).toBe('8');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(whole.subarray(2, 10));
    const [d] = await recorded(n + 1);
    expect(d).toMatchObject({ range: `bytes 2-9/${BYTES}`, bytes: 8, complete: false, via: 'api' });
    const tail = await ranged('bytes=-5');
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(whole.subarray(BYTES - 5));
    // From the first byte to the end is the whole file: complete.
    const all = await ranged('bytes=0-');
    expect(all.status).toBe(206);
    expect(Buffer.from(await all.arrayBuffer())).toEqual(whole);
    const [last] = await recorded(n + 3);
    expect(last).toMatchObject({ range: `bytes 0-${BYTES - 1}/${BYTES}`, bytes: BYTES, complete: true });
  });

  it('sends the whole file for what it does not serve: several ranges, past the end, nonsense, another file', async () => {
    for (const [range, extra] of [['bytes=0-1,4-5', {}], [`bytes=${BYTES}-`, {}], ['bytes=9-2', {}], ['items=0-1', {}], ['bytes=0-1', { 'if-range': '"another"' }]] as const) {
      const res = await ranged(range, extra);
      expect(res.status, range).toBe(200);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(whole);
    }
    const etag = `"${createHash('sha256').update(whole).digest('hex')}"`;
    const res = await ranged('bytes=0-1', { 'if-range': etag });
    expect(res.status).toBe(206);
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    await res.arrayBuffer();
    // Recorded all the same (six answers): their records are not what this test reads.
    await recorded(13);
  });
});

describe('GET /v1/tasks/{task_id}/downloads', () => {
  it('lists newest first, a page at a time, and only to the project key of the task', async () => {
    const all = await recorded(4);
    expect(all.map((d) => d.at)).toEqual([...all.map((d) => d.at)].sort().reverse());
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { json: { items: Item[]; next_cursor: string | null } } = await rt.call('GET', `/v1/tasks/${taskId}/downloads?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { token: a.api_key });
      expect(page.json.items.length).toBeLessThanOrEqual(1);
      seen.push(...page.json.items.map((d) => d.download_id));
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.map((d) => d.download_id));
    expectError(await rt.call('GET', `/v1/tasks/${taskId}/downloads`, { token: b.api_key }), 404, 'not_found');
    expectError(await rt.call('GET', `/v1/tasks/${taskId}/downloads`, { token: operatorToken }), 403, 'forbidden');
    expectError(await rt.call('GET', `/v1/tasks/${taskId}/downloads?limit=1000`, { token: a.api_key }), 422, 'validation_failed');
    expectError(await rt.call('GET', `/v1/tasks/${taskId}/downloads?cursor=nonsense`, { token: a.api_key }), 422, 'validation_failed');
    await expectKeyRefusals(rt, 'GET', `/v1/tasks/${taskId}/downloads`, { project: a.api_key });
  });
});

describe('GET /v1/downloads and /v1/downloads/count', () => {
  it("the project's, paged, since a time; another project sees none of them", async () => {
    const all = (await rt.call('GET', '/v1/downloads?limit=100', { token: a.api_key })).json.items as Item[];
    expect(all).toHaveLength(13);
    const first = (await rt.call('GET', '/v1/downloads?limit=3', { token: a.api_key })).json;
    expect(first.items.map((d: Item) => d.download_id)).toEqual(all.slice(0, 3).map((d) => d.download_id));
    const rest = (await rt.call('GET', `/v1/downloads?limit=3&cursor=${first.next_cursor}`, { token: a.api_key })).json;
    expect(rest.items.map((d: Item) => d.download_id)).toEqual(all.slice(3, 6).map((d) => d.download_id));
    const since = all[1]!.at;
    const recent = (await rt.call('GET', `/v1/downloads?since=${encodeURIComponent(since)}`, { token: a.api_key })).json.items as Item[];
    expect(recent.map((d) => d.download_id)).toEqual(all.filter((d) => d.at >= since).map((d) => d.download_id));
    expect((await rt.call('GET', '/v1/downloads/count', { token: a.api_key })).json).toEqual({ count: 13, more: false });
    expect((await rt.call('GET', '/v1/downloads', { token: b.api_key })).json).toEqual({ items: [], next_cursor: null });
    expect((await rt.call('GET', '/v1/downloads/count', { token: b.api_key })).json).toEqual({ count: 0, more: false });
  });

  it("an operator session sees its operator's own", async () => {
    const mine = (await rt.call('GET', '/v1/downloads', { token: operatorToken })).json.items as Item[];
    expect(mine.map((d) => [d.by.kind, d.by.id])).toEqual([
      ['operator', 'alice'],
      ['operator', 'alice'],
    ]);
    expect((await rt.call('GET', '/v1/downloads/count', { token: operatorToken })).json).toEqual({ count: 2, more: false });
    const bob = (await rt.call('POST', '/v1/operator-sessions', { token: a.api_key, body: { operator_id: 'bob' } })).json.token;
    expect((await rt.call('GET', '/v1/downloads/count', { token: bob })).json).toEqual({ count: 0, more: false });
  });

  it('refuses a bad since, limit or cursor with 422, and a missing key with 401', async () => {
    for (const q of ['since=yesterday', 'since=2026-13-01T00:00:00Z', 'limit=0', 'limit=101', 'cursor=%00']) {
      expectError(await rt.call('GET', `/v1/downloads?${q}`, { token: a.api_key }), 422, 'validation_failed');
    }
    expectError(await rt.call('GET', '/v1/downloads/count?since=never', { token: a.api_key }), 422, 'validation_failed');
    expectError(await rt.call('GET', '/v1/downloads'), 401, 'unauthorized');
    expectError(await rt.call('GET', '/v1/downloads/count', { token: 'dc_not-a-key-of-anyone-0123456789' }), 401, 'unauthorized');
  });
});

// Last: its records would change the counts the lists above read.
describe('a download resumed in pieces', () => {
  it('records complete the piece with which one downloader came to hold every byte, once', async () => {
    const session = async () => (await rt.call('POST', '/v1/operator-sessions', { token: a.api_key, body: { operator_id: 'alice' } })).json.token as string;
    const [mine, theirs] = [await session(), await session()];
    let n = (await recorded(0)).length;
    const step = async (token: string, range: string) => {
      const res = await rt.app.request(`/v1/tasks/${taskId}/download`, { headers: { authorization: `Bearer ${token}`, range } });
      expect(res.status).toBe(206);
      await res.arrayBuffer();
      n += 1;
      const [d] = await recorded(n);
      expect(d!.range, 'the newest record is this answer').toBe(`bytes ${range.slice(6).replace(/-$/, `-${BYTES - 1}`)}/${BYTES}`);
      return d!.complete;
    };
    // A gap (10-19) left: not yet.
    expect(await step(mine, 'bytes=0-9')).toBe(false);
    expect(await step(mine, 'bytes=20-')).toBe(false);
    // Another session's piece is not this downloader's: the gap stays.
    expect(await step(theirs, 'bytes=10-19')).toBe(false);
    // The gap, overlapping both sides: now the file is whole.
    expect(await step(mine, 'bytes=5-24')).toBe(true);
    // Held already: a piece fetched again completes nothing.
    expect(await step(mine, 'bytes=0-3')).toBe(false);
    // The other session, from its one piece: the rest in two, the last completes it.
    expect(await step(theirs, 'bytes=0-9')).toBe(false);
    expect(await step(theirs, 'bytes=20-')).toBe(true);
  });
});

itCalledItsRoutes('downloads', () => rt);
