// Usage and quotas through the real service (Temporal, Postgres, a source server, the worker): real
// exports, split into parts, counted as they end; GET /v1/usage agrees with the tasks' own files;
// a quota reached answers racing submissions and a sync export 429 quota_exceeded with its body;
// a quota crossed while other exports are queued and running (held by the source) refuses every
// later submission while they run and after, and the use passes the quota by no more than the
// output of the tasks active at the crossing (docs/usage.md#how-far-racing-submissions-can-overshoot).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let project: { project_id: string; api_key: string };
let sourceUrl: string;
const { source, closeSources } = sourcePool();
const ROWS = 30;
/** Source requests whose URL carries `hold=NAME` wait until release(NAME). */
const gates = new Map<string, { held: Promise<void>; release: () => void }>();
const gate = (name: string) => {
  if (!gates.has(name)) {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    gates.set(name, { held, release });
  }
  return gates.get(name)!;
};
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  env = await startTestEnv();
  const src = await source({ total: ROWS, hold: (r) => (r.query.get('hold') ? gate(r.query.get('hold')!).held : undefined) });
  sourceUrl = src.url;
  project = await env.createProject({ source_hosts: [src.host], max_running_tasks: 8, submit_per_minute: 10_000, csv_max_file_rows: 20 });
}, 120_000);

afterAll(async () => {
  await closeSources();
  await env?.close();
});

const submit = (name: string, hold?: string) =>
  env.api('POST', '/v1/tasks', { token: project.api_key, body: { source_url: hold ? `${sourceUrl}?hold=${hold}` : sourceUrl, operator_id: 'u1', file_name: name } });
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

/** The ids of the project's queued, running and paused tasks, as GET /v1/tasks lists them. */
async function activeIds(): Promise<string[]> {
  const lists = await Promise.all(['queued', 'running', 'paused'].map((st) => env.api('GET', `/v1/tasks?status=${st}&limit=100`, { token: project.api_key })));
  return lists.flatMap((r) => (r.json.items as Array<{ task_id: string }>).map((t) => t.task_id)).sort();
}

describe('usage and quotas, end to end', () => {
  it('counts real exports as they end: tasks, rows and bytes of their parts, and the bytes stored', async () => {
    const ids = (await Promise.all(['a', 'b', 'c'].map((n) => submit(n)))).map((r) => r.json.task_id as string);
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

  it('crossed while other exports are queued and running: every later submission is refused, and the use passes the quota by at most the output of the tasks active at the crossing', async () => {
    const start = (await usage()).days[0];
    const quota = start.rows + 10; // less than one export's rows: the first end crosses it
    expect((await setQuota({ quota_monthly_rows: quota, max_running_tasks: 3 })).status).toBe(200);
    // The crossing export runs first; four more are accepted below the quota behind it (with three
    // slots, some of them wait queued), all held by the source until released.
    const crossing = await submit('crossing', 'crossing');
    expect(crossing.status).toBe(202);
    await env.waitForTask(crossing.json.task_id, project.api_key, (t) => t.status === 'running');
    const others = await Promise.all(Array.from({ length: 4 }, (_, i) => submit(`held-${i}`, 'others')));
    expect(others.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    const otherIds = others.map((r) => r.json.task_id as string).sort();
    gate('crossing').release();
    const first = await finished([crossing.json.task_id]);
    const atCrossing = (await usage()).days[0].rows;
    expect(atCrossing).toBe(start.rows + first.rows);
    expect(atCrossing).toBeGreaterThanOrEqual(quota);
    // What the service has active at the crossing: the held exports, still waiting on the source.
    const active = await activeIds();
    expect(active).toEqual(otherIds);
    // Every submission after the crossing is refused while they run, a sync export too, with the use at the crossing.
    const late = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => submit(`late-${i}`)),
      env.api('POST', '/v1/tasks/sync', { token: project.api_key, body: { source_url: sourceUrl, operator_id: 'u1', file_name: 'late-sync' } }),
    ]);
    for (const res of late) {
      expect(res.status).toBe(429);
      expect(res.json.error.code).toBe('quota_exceeded');
      expect(res.json.error.quota).toMatchObject({ name: 'quota_monthly_rows', limit: quota, used: atCrossing });
    }
    expect(await activeIds()).toEqual(otherIds); // the refusals came while they were active
    gate('others').release();
    const rest = await finished(otherIds);
    const used = (await usage()).days[0];
    // The bound of docs/usage.md: what was active at the crossing (the crossing export included) and nothing more.
    expect(used.rows - quota).toBeGreaterThan(0);
    expect(used.rows - quota).toBeLessThanOrEqual(first.rows + rest.rows);
    expect(used.rows).toBe(start.rows + first.rows + rest.rows);
    expect(used.tasks - start.tasks).toBe(5);
    // And after they all ended: still refused, with the final use.
    const next = await submit('after');
    expect(next.status).toBe(429);
    expect(next.json.error.quota).toMatchObject({ limit: quota, used: used.rows });
    const metrics = await fetch(`${env.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } }).then((r) => r.text());
    expect(metrics).toContain(`dc_usage_rows_today{project_id="${project.project_id}"} ${used.rows}`);
    await setQuota({ quota_monthly_rows: null });
    expect((await submit('free')).status).toBe(202);
  });
});
