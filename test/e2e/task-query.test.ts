import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tasks } from '../../db/schema.js';
import { type SourceServer, startSource } from '../support/source-server.js';
import { startTestEnv, type TestEnv } from '../support/env.js';

let env: TestEnv;
let key: string;
let src: SourceServer;
const ids: Record<string, string> = {};

// Four tasks, back-dated to known creation times: 1 and 3 by alice, 2 and 4 by bob; 4 fails.
const created = { t1: '2026-01-01T00:00:00Z', t2: '2026-01-02T00:00:00Z', t3: '2026-01-03T00:00:00Z', t4: '2026-01-04T00:00:00Z' };

beforeAll(async () => {
  env = await startTestEnv();
  ({ api_key: key } = await env.createProject({ source_hosts: ['127.0.0.1'] }));
  src = await startSource({ total: 5, intercept: (r) => (r.query.get('n') === 't4' ? { status: 404, body: '{}' } : undefined) });
  for (const [name, at] of Object.entries(created)) {
    const operator = name === 't1' || name === 't3' ? 'alice' : 'bob';
    const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: `${src.url}?n=${name}`, operator_id: operator } });
    ids[name] = res.json.task_id;
    await env.waitForTask(res.json.task_id, key);
    await env.core.database.db.update(tasks).set({ createdAt: new Date(at) }).where(eq(tasks.id, res.json.task_id));
  }
});

afterAll(async () => {
  await src?.close();
  await env?.close();
});

async function list(query: string) {
  const res = await env.api('GET', `/v1/tasks?${query}`, { token: key });
  expect(res.status).toBe(200);
  return res.json.items.map((t: { task_id: string }) => Object.keys(ids).find((k) => ids[k] === t.task_id));
}

describe('passive query', () => {
  it('filters by creation time, operator and status, newest first', async () => {
    expect(await list('')).toEqual(['t4', 't3', 't2', 't1']);
    expect(await list('created_after=2026-01-02T00:00:00Z')).toEqual(['t4', 't3', 't2']);
    expect(await list('created_before=2026-01-03T00:00:00Z')).toEqual(['t2', 't1']);
    expect(await list('created_after=2026-01-02T00:00:00%2B08:00&created_before=2026-01-04T00:00:00Z')).toEqual(['t3', 't2']);
    expect(await list('operator_id=alice&created_after=2026-01-02T00:00:00Z')).toEqual(['t3']);
    expect(await list('status=failed')).toEqual(['t4']);
    expect(await list('status=succeeded&operator_id=bob')).toEqual(['t2']);
  });

  it('counts by status with the same filters', async () => {
    const all = await env.api('GET', '/v1/tasks/counts', { token: key });
    expect(all.json.counts).toEqual({ queued: 0, running: 0, paused: 0, succeeded: 3, failed: 1, cancelled: 0, expired: 0 });
    const bob = await env.api('GET', '/v1/tasks/counts?operator_id=bob&created_before=2026-01-04T00:00:00Z', { token: key });
    expect(bob.json.counts).toMatchObject({ succeeded: 1, failed: 0 });
  });

  it('refuses a malformed time with the field named', async () => {
    const res = await env.api('GET', '/v1/tasks?created_after=yesterday', { token: key });
    expect(res.status).toBe(422);
    expect(res.json.error.details[0].field).toBe('created_after');
  });
});
