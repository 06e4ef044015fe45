// Usage and quotas through the real service (Temporal, Postgres, a source server, the worker): real
// exports, split into parts, counted as they end; GET /v1/usage agrees with the tasks' own files;
// a quota reached answers racing submissions and a sync export 429 quota_exceeded with its body;
// what was accepted below the quota runs to its end, and the use passes the quota by no more than
// the output of those tasks (docs/usage.md#how-far-racing-submissions-can-overshoot).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let project: { project_id: string; api_key: string };
let sourceUrl: string;
const { source, closeSources } = sourcePool();
const ROWS = 30;
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  env = await startTestEnv();
  const src = await source({ total: ROWS });
  sourceUrl = src.url;
  project = await env.createProject({ source_hosts: [src.host], max_running_tasks: 8, submit_per_minute: 10_000, csv_max_file_rows: 20 });
}, 120_000);

afterAll(async () => {
  await closeSources();
  await env?.close();
});

const submit = (name: string) => env.api('POST', '/v1/tasks', { token: project.api_key, body: { source_url: sourceUrl, operator_id: 'u1', file_name: name } });
const usage = async () => (await env.api('GET', `/v1/usage?from=${today()}&to=${today()}`, { token: project.api_key })).json;
const setQuota = (body: Record<string, unknown>) => env.api('PATCH', `/v1/projects/${project.project_id}`, { token: ADMIN, body });

/** Accepted tasks run to their end; their parts' rows and bytes (not the zip's). */
async function finished(ids: string[]): Promise<{ rows: number; bytes: number; stored: number }> {
  const tasks = await Promise.all(ids.map((id) => env.waitForTask(id, project.api_key)));
  expect(tasks.map((t) => t.status)).toEqual(ids.map(() => 'succeeded'));
  const files = tasks.flatMap((t) => t.files as Array<{ name: string; rows: number; bytes: number }>);
  const parts = files.filter((f) => !f.name.endsWith('.zip'));
  return { rows: parts.reduce((s, f) => s + f.rows, 0), bytes: parts.reduce((s, f) => s + f.bytes, 0), stored: files.reduce((s, f) => s + f.bytes, 0) };
}

describe('usage and quotas, end to end', () => {
  it('counts real exports as they end: tasks, rows and bytes of their parts, and the bytes stored', async () => {
    const ids = (await Promise.all(['a', 'b', 'c'].map(submit))).map((r) => r.json.task_id as string);
    const out = await finished(ids);
    expect(out.rows).toBe(3 * ROWS);
    const u = await usage();
    expect(u.days).toEqual([{ date: today(), tasks: 3, succeeded: 3, failed: 0, rows: out.rows, bytes: out.bytes, deliveries: 0, emails: 0 }]);
    expect(u.stored_bytes).toBe(out.stored);
    expect(out.stored).toBeGreaterThan(out.bytes); // each split export has its zip too
  });

  it('refuses racing submissions and a sync export once a quota is reached, with the quota, its use and its reset', async () => {
    const before = await usage();
    expect((await setQuota({ quota_monthly_rows: 3 * ROWS })).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => submit(`over-${i}`)));
    for (const res of answers) {
      expect(res.status).toBe(429);
      expect(res.json.error.code).toBe('quota_exceeded');
      expect(res.json.error.quota).toMatchObject({ name: 'quota_monthly_rows', limit: 3 * ROWS, used: 3 * ROWS });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const sync = await env.api('POST', '/v1/tasks/sync', { token: project.api_key, body: { source_url: sourceUrl, operator_id: 'u1', file_name: 'over-sync' } });
    expect({ status: sync.status, code: sync.json.error.code }).toEqual({ status: 429, code: 'quota_exceeded' });
    // Nothing refused was counted.
    expect((await usage()).days[0].tasks).toBe(before.days[0].tasks);
  });

  it('lets what was accepted below the quota finish: the use passes it by no more than their output, then refuses', async () => {
    const quota = 3 * ROWS + 10;
    await setQuota({ quota_monthly_rows: quota });
    const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => submit(`under-${i}`)));
    const accepted = racing.filter((r) => r.status === 202).map((r) => r.json.task_id as string);
    // Below the quota every one is accepted: rows are known only as tasks end.
    expect(accepted).toHaveLength(5);
    const out = await finished(accepted);
    const used = (await usage()).days[0].rows;
    expect(used).toBe(3 * ROWS + out.rows);
    expect(used - quota).toBeLessThanOrEqual(out.rows);
    const next = await submit('after');
    expect(next.status).toBe(429);
    expect(next.json.error.quota).toMatchObject({ limit: quota, used });
    const metrics = await fetch(`${env.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } }).then((r) => r.text());
    expect(metrics).toContain(`dc_usage_rows_today{project_id="${project.project_id}"} ${used}`);
    await setQuota({ quota_monthly_rows: null });
    expect((await submit('free')).status).toBe(202);
  });
});
