// GET /v1/usage and GET /v1/admin/usage in process (route-app.ts), and the quotas as a caller
// meets them: 429 quota_exceeded on a submission, a sync export and a retry once one is reached,
// with the quota, its use and its reset in the body; each project sees only its own use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadCenter, DownloadCenterError } from '../../client/src/index.js';
import { submitRun } from '../../domain/schedules/runs.js';
import { finishTask, markRunning } from '../../domain/tasks/status.js';
import { utcToday } from '../../domain/usage/usage.js';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { ADMIN, type Project, type RouteApp, startWithTwoProjects, taskBody } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

const CSV = 'id,name\n1,a\n2,b\n3,c\n';
const DAY = 86_400_000;
const dateAt = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);

let rt: RouteApp;
let a: Project;
let b: Project;
const succeeded: string[] = [];
beforeAll(async () => {
  ({ rt, a, b } = await startWithTwoProjects());
  for (const name of ['one', 'two']) {
    const task = await rt.submit(a.api_key, taskBody({ file_name: name }));
    await rt.succeed(task.task_id, CSV);
    succeeded.push(task.task_id);
  }
  const failed = await rt.submit(a.api_key, taskBody({ file_name: 'failed' }));
  await markRunning(rt.database.db, failed.task_id);
  await finishTask(rt.database.db, failed.task_id, { status: 'failed', errorCode: 'source_unreachable', errorMessage: 'no answer' });
  succeeded.push(failed.task_id);
});
afterAll(() => rt?.close());

const usageOf = (key: string, from = dateAt(-2), to = dateAt(0)) => rt.call('GET', `/v1/usage?from=${from}&to=${to}`, { token: key });

describe('GET /v1/usage', () => {
  it('lists every day of the range, oldest first, zeros included, and the bytes stored now', async () => {
    const res = await usageOf(a.api_key);
    expect(res.status).toBe(200);
    expect(res.json.days.map((d: { date: string }) => d.date)).toEqual([dateAt(-2), dateAt(-1), dateAt(0)]);
    expect(res.json.days[0]).toEqual({ date: dateAt(-2), tasks: 0, succeeded: 0, failed: 0, rows: 0, bytes: 0, deliveries: 0, emails: 0 });
    expect(res.json.days[2]).toEqual({ date: utcToday(), tasks: 3, succeeded: 2, failed: 1, rows: 6, bytes: 2 * CSV.length, deliveries: 0, emails: 0 });
    expect(res.json.stored_bytes).toBe(2 * CSV.length);
  });

  it("shows a project only its own use: the other project's is not in it", async () => {
    const res = await usageOf(b.api_key);
    expect(res.status).toBe(200);
    expect(res.json.days.every((d: Record<string, number>) => d.tasks === 0 && d.rows === 0)).toBe(true);
    expect(res.json.stored_bytes).toBe(0);
  });

  it('refuses a range that is reversed, longer than 366 days or not a date (422), and any key but a project key', async () => {
    for (const [from, to, field] of [
      [dateAt(0), dateAt(-1), 'to'],
      ['2025-01-01', '2026-01-02', 'to'],
      ['2026-02-30', '2026-03-01', 'from'],
      ['yesterday', dateAt(0), 'from'],
      ['0000-01-01', '0000-01-02', 'from'],
      ['1999-12-31', '2000-01-01', 'from'],
    ] as const) {
      const res = await usageOf(a.api_key, from, to);
      expectError(res, 422, 'validation_failed');
      expect(res.json.error.details[0].field).toBe(field);
    }
    expect((await usageOf(a.api_key, '2025-01-01', '2026-01-01')).status).toBe(200);
    expect((await usageOf(a.api_key, '9999-12-31', '9999-12-31')).json.days).toHaveLength(1);
    expectError(await rt.call('GET', '/v1/usage', { token: a.api_key }), 422, 'validation_failed');
    await expectKeyRefusals(rt, 'GET', `/v1/usage?from=${dateAt(0)}&to=${dateAt(0)}`, { project: a.project_id });
  });
});

describe('GET /v1/admin/usage', () => {
  it("totals each project's range, filtered by project and paged", async () => {
    await rt.submit(b.api_key, taskBody({ file_name: 'b-one' }));
    const all = await rt.call('GET', `/v1/admin/usage?from=${dateAt(-30)}&to=${dateAt(0)}`, { token: ADMIN });
    expect(all.status).toBe(200);
    const byId = Object.fromEntries(all.json.items.map((p: { project_id: string }) => [p.project_id, p]));
    expect(byId[a.project_id]).toEqual({ project_id: a.project_id, tasks: 3, succeeded: 2, failed: 1, rows: 6, bytes: 2 * CSV.length, deliveries: 0, emails: 0, stored_bytes: 2 * CSV.length });
    expect(byId[b.project_id]).toMatchObject({ tasks: 1, succeeded: 0, stored_bytes: 0 });
    const first = await rt.call('GET', `/v1/admin/usage?from=${dateAt(0)}&to=${dateAt(0)}&limit=1`, { token: ADMIN });
    expect(first.json.items).toHaveLength(1);
    const next = await rt.call('GET', `/v1/admin/usage?from=${dateAt(0)}&to=${dateAt(0)}&limit=1&cursor=${encodeURIComponent(first.json.next_cursor)}`, { token: ADMIN });
    expect(next.json.items).toHaveLength(1);
    expect(next.json.items[0].project_id > first.json.items[0].project_id).toBe(true);
    const onlyB = await rt.call('GET', `/v1/admin/usage?from=${dateAt(0)}&to=${dateAt(0)}&project_id=${b.project_id}`, { token: ADMIN });
    expect(onlyB.json.items.map((p: { project_id: string }) => p.project_id)).toEqual([b.project_id]);
    // Days before any use: only the projects holding files, with zeros and their bytes stored.
    expect((await rt.call('GET', '/v1/admin/usage?from=2020-01-01&to=2020-01-31', { token: ADMIN })).json.items).toEqual([
      { project_id: a.project_id, tasks: 0, succeeded: 0, failed: 0, rows: 0, bytes: 0, deliveries: 0, emails: 0, stored_bytes: 2 * CSV.length },
    ]);
  });

  it('refuses a bad range or cursor (422) and any key but the admin token', async () => {
    expectError(await rt.call('GET', `/v1/admin/usage?from=${dateAt(-400)}&to=${dateAt(0)}`, { token: ADMIN }), 422, 'validation_failed');
    expectError(await rt.call('GET', `/v1/admin/usage?from=${dateAt(0)}&to=${dateAt(0)}&cursor=nonsense`, { token: ADMIN }), 422, 'validation_failed');
    await expectKeyRefusals(rt, 'GET', `/v1/admin/usage?from=${dateAt(0)}&to=${dateAt(0)}`, 'admin');
  });
});

const patch = (body: Record<string, unknown>) => rt.call('PATCH', `/v1/projects/${a.project_id}`, { token: ADMIN, body });

describe('quotas', () => {
  it('refuses a submission, a sync export and a retry once the monthly rows are reached, naming the quota, its use and its reset', async () => {
    const set = await patch({ quota_monthly_rows: 6 });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({ quota_monthly_rows: 6, quota_monthly_bytes: null, quota_stored_bytes: null });
    const res = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ file_name: 'over' }) });
    expectError(res, 429, 'quota_exceeded');
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().replace('.000Z', 'Z');
    expect(res.json.error.quota).toEqual({ name: 'quota_monthly_rows', limit: 6, used: 6, resets_at: nextMonth });
    expect(res.json.error.message).toContain('quota_monthly_rows');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expectError(await rt.call('POST', '/v1/tasks/sync', { token: a.api_key, body: taskBody({ file_name: 'over-sync' }) }), 429, 'quota_exceeded');
    expectError(await rt.call('POST', `/v1/tasks/${succeeded[2]}/retry`, { token: a.api_key }), 429, 'quota_exceeded');
    // Another project is not held by a's quota.
    expect((await rt.call('POST', '/v1/tasks', { token: b.api_key, body: taskBody({ file_name: 'b-free' }) })).status).toBe(202);
    // Raised above the use: accepted again.
    await patch({ quota_monthly_rows: 7 });
    expect((await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ file_name: 'under' }) })).status).toBe(202);
  });

  it('refuses once the monthly bytes or the stored bytes are reached; stored bytes reset as the next file expires', async () => {
    await patch({ quota_monthly_rows: null, quota_monthly_bytes: 2 * CSV.length });
    const bytes = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ file_name: 'bytes' }) });
    expectError(bytes, 429, 'quota_exceeded');
    expect(bytes.json.error.quota).toMatchObject({ name: 'quota_monthly_bytes', limit: 2 * CSV.length, used: 2 * CSV.length });
    await patch({ quota_monthly_bytes: null, quota_stored_bytes: 10 });
    const stored = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ file_name: 'stored' }) });
    expectError(stored, 429, 'quota_exceeded');
    const task = (await rt.call('GET', `/v1/tasks/${succeeded[0]}`, { token: a.api_key })).json;
    expect(stored.json.error.quota).toEqual({ name: 'quota_stored_bytes', limit: 10, used: 2 * CSV.length, resets_at: task.expires_at });
    expect(stored.json.error.message).toContain('expire');
    await patch({ quota_stored_bytes: null });
    expect((await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ file_name: 'no-quota' }) })).status).toBe(202);
  });

  it("refuses a schedule's run while a quota is reached, without pausing the schedule", async () => {
    const created = await rt.call('POST', '/v1/schedules', { token: a.api_key, body: { ...taskBody({ file_name: 'nightly' }), every: '1h' } });
    expect(created.status).toBe(201);
    const scheduleId = created.json.schedule_id as string;
    const deps = { db: rt.database.db, temporal: rt.temporal.client, config: rt.config };
    const tasksBefore = (await usageOf(a.api_key, dateAt(0), dateAt(0))).json.days[0].tasks;
    await patch({ quota_stored_bytes: 0 });
    const run = await submitRun(deps, { scheduleId, scheduledAt: new Date().toISOString(), run: 'run-over-quota' });
    expect(run).toMatchObject({ outcome: 'refused', reason: expect.stringContaining('quota_exceeded') });
    const schedule = (await rt.call('GET', `/v1/schedules/${scheduleId}`, { token: a.api_key })).json;
    expect(schedule).toMatchObject({ paused: false, last_run: { outcome: 'refused', task_id: null } });
    // Counted neither as a task nor refused for good: with the quota lifted, the next run makes its task.
    await patch({ quota_stored_bytes: null });
    expect(await submitRun(deps, { scheduleId, scheduledAt: new Date().toISOString(), run: 'run-under-quota' })).toMatchObject({ outcome: 'submitted' });
    expect((await usageOf(a.api_key, dateAt(0), dateAt(0))).json.days[0].tasks).toBe(tasksBefore + 1);
    await rt.call('DELETE', `/v1/schedules/${scheduleId}`, { token: a.api_key });
  });

  it('refuses a quota that is not a whole number of zero or more (422)', async () => {
    for (const bad of [-1, 1.5, 'many']) expectError(await patch({ quota_monthly_rows: bad }), 422, 'validation_failed');
  });
});

describe('the client', () => {
  it('reads the usage and throws a quota refusal with its quota', async () => {
    const dc = new DownloadCenter({ baseUrl: 'http://dc.test', apiKey: a.api_key, fetch: (req) => Promise.resolve(rt.app.request(req)) });
    const usage = await dc.usage(dateAt(0), dateAt(0));
    expect(usage).toEqual((await usageOf(a.api_key, dateAt(0), dateAt(0))).json);
    await patch({ quota_stored_bytes: 0 });
    const err = await dc.submit(taskBody({ file_name: 'client-over' }) as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadCenterError);
    expect(err).toMatchObject({ status: 429, code: 'quota_exceeded', quota: { name: 'quota_stored_bytes', limit: 0, used: 2 * CSV.length } });
    await patch({ quota_stored_bytes: null });
  });
});

describe('GET /metrics', () => {
  it("exposes each project's stored bytes and today's rows and bytes, by project id", async () => {
    const text = (await rt.call('GET', '/metrics', { token: ADMIN })).text;
    expect(text).toContain(`dc_usage_stored_bytes{project_id="${a.project_id}"} ${2 * CSV.length}`);
    expect(text).toContain(`dc_usage_rows_today{project_id="${a.project_id}"} 6`);
    expect(text).toContain(`dc_usage_bytes_today{project_id="${a.project_id}"} ${2 * CSV.length}`);
    // A project with nothing stored and no output today has no series.
    expect(text).not.toContain(`dc_usage_stored_bytes{project_id="${b.project_id}"}`);
  });
});

itCalledItsRoutes('usage', () => rt);
