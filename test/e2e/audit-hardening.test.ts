// Bad input found by an outside audit answers a 4xx with a code, never a 500 or a silent default:
// forged list cursors on every paged list (a NUL in the id, a date Postgres cannot store, a shape
// this API never returned), a misspelt option in any body the API accepts, and file names that are
// long in characters or in bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';

let env: TestEnv;
let key: string;

beforeAll(async () => {
  env = await startTestEnv({}, { worker: false });
  ({ api_key: key } = await env.createProject());
});

afterAll(async () => {
  await env?.close();
});

const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('forged list cursors', () => {
  const cursors = {
    'NUL in the id': forge(['2026-01-01T00:00:00.000Z', 'tsk_a\u0000b']),
    'a year Postgres cannot store': forge(['-271821-04-20T00:00:00.000Z', 'tsk_abc']),
    'a far future year': forge(['+275760-09-13T00:00:00.000Z', 'tsk_abc']),
    'not an array': forge({ at: 1 }),
    'a number for the date': forge([1e15, 'tsk_abc']),
    'not base64 JSON': '%%%',
  };
  const lists: [string, string][] = [
    ['/v1/tasks', 'project'],
    ['/v1/schedules', 'project'],
    ['/v1/admin/tasks', 'admin'],
    ['/v1/projects', 'admin'],
  ];

  for (const [path, who] of lists) {
    it.each(Object.entries(cursors))(`${path} answers 422 for %s`, async (_label, cursor) => {
      const res = await env.api('GET', `${path}?cursor=${encodeURIComponent(cursor)}`, { token: who === 'admin' ? ADMIN : key });
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.json.error).toMatchObject({ code: 'validation_failed', request_id: expect.any(String) });
      expect(res.json.error.details).toContainEqual({ field: 'cursor', message: expect.any(String) });
    });
  }

  it('still accepts the cursors the API itself returns', async () => {
    for (const [path, who] of lists) {
      const token = who === 'admin' ? ADMIN : key;
      const first = await env.api('GET', `${path}?limit=1`, { token });
      expect(first.status).toBe(200);
      const made = forge([new Date().toISOString(), 'tsk_0123456789abcdef']);
      const next = await env.api('GET', `${path}?limit=1&cursor=${made}`, { token });
      expect(next.status, JSON.stringify(next.json)).toBe(200);
    }
  });
});

describe('misspelt options', () => {
  const task = { source_url: 'http://127.0.0.1:9/x', operator_id: 'op' };
  const cases: Array<[string, string, 'project' | 'admin', Record<string, unknown>, string]> = [
    ['POST', '/v1/tasks', 'project', { ...task, page_sise: 100, typ: 'excel' }, 'page_sise'],
    ['POST', '/v1/tasks/sync', 'project', { ...task, page_sise: 100 }, 'page_sise'],
    ['POST', '/v1/tasks/preview', 'project', { ...task, row: 5 }, 'row'],
    ['POST', '/v1/tasks', 'project', { ...task, type: 'excel', sheets: [{ source_url: task.source_url, nam: 'x' }] }, 'sheets.0.nam'],
    ['POST', '/v1/schedules', 'project', { ...task, every: '1h', timezon: 'UTC' }, 'timezon'],
    ['POST', '/v1/projects', 'admin', { name: 'x', source_hosts: ['127.0.0.1'], max_runing_tasks: 50 }, 'max_runing_tasks'],
  ];

  it.each(cases)('%s %s refuses an unknown field with 422 naming it', async (method, path, who, body, field) => {
    const res = await env.api(method, path, { token: who === 'admin' ? ADMIN : key, body });
    expect(res.status, JSON.stringify(res.json)).toBe(422);
    expect(res.json.error.code).toBe('validation_failed');
    expect(res.json.error.details).toContainEqual({ field, message: 'is not a field of this request' });
  });

  it('refuses one on the project settings and a schedule note too', async () => {
    const created = await env.api('POST', '/v1/projects', { token: ADMIN, body: { name: 'strict', source_hosts: ['127.0.0.1'] } });
    const patch = await env.api('PATCH', `/v1/projects/${created.json.project_id}`, { token: ADMIN, body: { retention_hour: 5 } });
    expect(patch.status).toBe(422);
    expect(patch.json.error.details).toContainEqual({ field: 'retention_hour', message: 'is not a field of this request' });
    const sched = await env.api('POST', '/v1/schedules', { token: key, body: { ...task, every: '1h' } });
    expect(sched.status, JSON.stringify(sched.json)).toBe(201);
    const paused = await env.api('POST', `/v1/schedules/${sched.json.schedule_id}/pause`, { token: key, body: { note: 'x', notes: 'y' } });
    expect(paused.status).toBe(422);
    expect(paused.json.error.details).toContainEqual({ field: 'notes', message: 'is not a field of this request' });
  });
});

describe('long file names', () => {
  const task = { source_url: 'http://127.0.0.1:9/x', operator_id: 'op' };
  const emojiTail = `${'a'.repeat(119)}👍🏽`; // 121 code points: the clip must not split the emoji

  it('clips a name by characters and bytes without splitting a character', async () => {
    const res = await env.api('POST', '/v1/tasks', { token: key, body: { ...task, file_name: emojiTail } });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect(res.json.file_name).toBe('a'.repeat(119));
    const cjk = await env.api('POST', '/v1/tasks', { token: key, body: { ...task, file_name: '订'.repeat(100) } });
    expect(cjk.json.file_name).toBe('订'.repeat(80)); // 240 bytes
  });

  it('passes the schedule and the preview on to their real work, never a 500', async () => {
    const sched = await env.api('POST', '/v1/schedules', { token: key, body: { ...task, every: '1h', file_name: `${'b'.repeat(119)}😀😀` } });
    expect(sched.status, JSON.stringify(sched.json)).toBe(201);
    const preview = await env.api('POST', '/v1/tasks/preview', { token: key, body: { ...task, file_name: emojiTail } });
    // The name is fine; what is left is the source (nothing listens at port 9).
    expect(preview.status, JSON.stringify(preview.json)).toBe(502);
    expect(preview.json.error.code).toBe('source_unreachable');
  });

  it('counts every text limit in characters as the document does (code points), not UTF-16 units', async () => {
    const at = (n: number) => '😀'.repeat(n);
    expect((await env.api('POST', '/v1/tasks', { token: key, body: { ...task, operator_id: at(128), title: at(500), type: 'excel' } })).status).toBe(202);
    const over = await env.api('POST', '/v1/tasks', { token: key, body: { ...task, operator_id: at(129) } });
    expect(over.json.error.details).toContainEqual({ field: 'operator_id', message: 'at most 128 characters' });
    expect((await env.api('POST', '/v1/projects', { token: ADMIN, body: { name: at(100), source_hosts: ['127.0.0.1'] } })).status).toBe(201);
    expect((await env.api('POST', '/v1/projects', { token: ADMIN, body: { name: at(101), source_hosts: ['127.0.0.1'] } })).status).toBe(422);
  });

  it('counts the limit in characters as the document does (code points)', async () => {
    const ok = await env.api('POST', '/v1/tasks', { token: key, body: { ...task, file_name: '😀'.repeat(200) } });
    expect(ok.status, JSON.stringify(ok.json)).toBe(202);
    const over = await env.api('POST', '/v1/tasks', { token: key, body: { ...task, file_name: '😀'.repeat(201) } });
    expect(over.status).toBe(422);
    expect(over.json.error.details).toContainEqual({ field: 'file_name', message: 'at most 200 characters' });
  });
});
