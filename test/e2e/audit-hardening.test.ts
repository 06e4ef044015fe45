// Bad input found by an outside audit answers a 4xx with a code, never a 500: forged list cursors on
// every paged list (a NUL in the id, a date Postgres cannot store, a shape this API never returned).
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
