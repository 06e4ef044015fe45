// /v1/schedules in process (route-app.ts). The fake Temporal client holds the Temporal Schedules:
// that the API creates, pauses, resumes, triggers and deletes them is what is checked here; what
// Temporal makes of a cron expression is the e2e tests' (test/e2e/schedules.test.ts).
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { type Project, type RouteApp, startWithTwoProjects, taskBody } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

let rt: RouteApp;
let a: Project;
let b: Project;
beforeAll(async () => ({ rt, a, b } = await startWithTwoProjects({}, { max_schedules: 1 })));
afterAll(() => rt?.close());

const create = (key: string, extra: Record<string, unknown> = { every: '1h' }) => rt.call('POST', '/v1/schedules', { token: key, body: { ...taskBody(), ...extra } });

describe('POST /v1/schedules', () => {
  it('creates a schedule (201, Location) and its Temporal Schedule, with the next due times', async () => {
    const res = await create(a.api_key, { cron: '0 6 * * 1-5', timezone: 'Asia/Shanghai', file_name: 'daily-{date}' });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ project_id: a.project_id, cron: '0 6 * * 1-5', every: null, timezone: 'Asia/Shanghai', paused: false });
    expect(res.json.task).toMatchObject({ operator_id: 'op-1', file_name: 'daily-{date}' });
    expect(res.json.next_runs.length).toBeGreaterThan(0);
    expect(res.headers.get('location')).toBe(`/v1/schedules/${res.json.schedule_id}`);
    expect(rt.temporal.of('schedule.create')).toContainEqual({
      kind: 'schedule.create',
      scheduleId: res.json.schedule_id,
      spec: { cronExpressions: ['0 6 * * 1-5'], timezone: 'Asia/Shanghai' },
    });
  });

  it('refuses what it can judge itself (422 on the field), a foreign host, and a project over max_schedules (409)', async () => {
    for (const [extra, field] of [
      [{}, 'cron'],
      [{ cron: '* * * * *', every: '1h' }, 'every'],
      [{ every: '10s' }, 'every'],
      [{ every: '1h', timezone: 'Mars/Olympus' }, 'timezone'],
      [{ every: '1h', page_size: 1 }, 'page_size'],
      // Six fields are minute … day-of-week year to Temporal: seconds first would be misread.
      [{ cron: '*/5 * * * * *' }, 'cron'],
      [{ cron: '0 0 2 * * 1-5' }, 'cron'],
    ] as const) {
      const res = await create(a.api_key, extra);
      expectError(res, 422, 'validation_failed');
      expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await create(a.api_key, { cron: '0 2 * * * 2027' })).status).toBe(201);
    expect((await create(a.api_key, { cron: '*/5 * * * * * *' })).status).toBe(201);
    expectError(await create(a.api_key, { every: '1h', source_url: 'https://elsewhere.example/x' }), 422, 'source_host_not_allowed');
    expect((await create(b.api_key)).status).toBe(201);
    expectError(await create(b.api_key), 409, 'schedule_limit_reached');
  });

  it('needs a project key', async () => {
    await expectKeyRefusals(rt, 'POST', '/v1/schedules', { project: a.api_key }, { body: { ...taskBody(), every: '1h' } });
  });
});

describe('one schedule', () => {
  it('reads, pauses (with a note), resumes, triggers and deletes it, telling Temporal each time', async () => {
    const s = (await create(a.api_key, { every: '30m', operator_id: 'life' })).json;
    const at = (suffix = '') => `/v1/schedules/${s.schedule_id}${suffix}`;
    const got = await rt.call('GET', at(), { token: a.api_key });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ schedule_id: s.schedule_id, every: '30m', paused: false });
    const paused = await rt.call('POST', at('/pause'), { token: a.api_key, body: { note: 'source down' } });
    expect(paused.status).toBe(200);
    expect(paused.json).toMatchObject({ paused: true, note: 'source down', paused_reason: 'manual', last_error: null, consecutive_failures: 0, backfill: null });
    const resumed = await rt.call('POST', at('/resume'), { token: a.api_key, body: {} });
    expect(resumed.status).toBe(200);
    expect(resumed.json).toMatchObject({ paused: false, note: null, paused_reason: null });
    const triggered = await rt.call('POST', at('/trigger'), { token: a.api_key });
    expect(triggered.status).toBe(202);
    expect(triggered.json.schedule_id).toBe(s.schedule_id);
    expect((await rt.call('DELETE', at(), { token: a.api_key })).status).toBe(204);
    expect(rt.temporal.calls.filter((c) => 'scheduleId' in c && c.scheduleId === s.schedule_id).map((c) => c.kind)).toEqual([
      'schedule.create',
      'schedule.pause',
      'schedule.unpause',
      'schedule.trigger',
      'schedule.delete',
    ]);
    expectError(await rt.call('GET', at(), { token: a.api_key }), 404, 'not_found');
  });

  it("lists only the caller's schedules, a page at a time", async () => {
    const c = await rt.createProject({ name: 'c' });
    const made = [(await create(c.api_key, { every: '1h' })).json.schedule_id, (await create(c.api_key, { every: '2h' })).json.schedule_id];
    const first = await rt.call('GET', '/v1/schedules?limit=1', { token: c.api_key });
    expect(first.status).toBe(200);
    const rest = await rt.call('GET', `/v1/schedules?limit=1&cursor=${encodeURIComponent(first.json.next_cursor)}`, { token: c.api_key });
    // Two made in the same millisecond may list either way round: the pages hold each once.
    expect([...first.json.items, ...rest.json.items].map((s: { schedule_id: string }) => s.schedule_id).sort()).toEqual(made.sort());
    expect(rest.json.next_cursor).toBeNull();
    expectError(await rt.call('GET', '/v1/schedules?limit=0', { token: c.api_key }), 422, 'validation_failed');
  });

  it("is a 404 to another project, which can neither read nor change it", async () => {
    const s = (await create(a.api_key, { every: '2h', operator_id: 'private' })).json;
    const path = `/v1/schedules/${s.schedule_id}`;
    expectError(await rt.call('GET', path, { token: b.api_key }), 404, 'not_found');
    expectError(await rt.call('DELETE', path, { token: b.api_key }), 404, 'not_found');
    for (const action of ['pause', 'resume', 'trigger']) expectError(await rt.call('POST', `${path}/${action}`, { token: b.api_key, body: {} }), 404, 'not_found');
    expect((await rt.call('GET', path, { token: a.api_key })).json.paused).toBe(false);
    expect((await rt.call('GET', '/v1/schedules', { token: b.api_key })).json.items.map((x: { schedule_id: string }) => x.schedule_id)).not.toContain(s.schedule_id);
  });

  it('refuses a note that is not text (422) and a schedule id with a NUL (422)', async () => {
    const s = (await create(a.api_key, { every: '3h', operator_id: 'notes' })).json;
    expectError(await rt.call('POST', `/v1/schedules/${s.schedule_id}/pause`, { token: a.api_key, body: { note: 42 } }), 422, 'validation_failed');
    expectError(await rt.call('GET', '/v1/schedules/sch_%00', { token: a.api_key }), 422, 'validation_failed');
    expectError(await rt.call('DELETE', '/v1/schedules/sch_%00', { token: a.api_key }), 422, 'validation_failed');
    for (const action of ['pause', 'resume', 'trigger']) expectError(await rt.call('POST', `/v1/schedules/sch_%00/${action}`, { token: a.api_key, body: {} }), 422, 'validation_failed');
  });

  it('needs a project key, on every route', async () => {
    const project = { project: a.api_key };
    await expectKeyRefusals(rt, 'GET', '/v1/schedules', project);
    await expectKeyRefusals(rt, 'GET', '/v1/schedules/sch_any', project);
    await expectKeyRefusals(rt, 'DELETE', '/v1/schedules/sch_any', project);
    for (const action of ['pause', 'resume', 'trigger']) await expectKeyRefusals(rt, 'POST', `/v1/schedules/sch_any/${action}`, project, { body: {} });
  });
});

describe('POST /v1/schedules/:schedule_id/backfill', () => {
  const backfill = (id: string, body: unknown, key = a.api_key) => rt.call('POST', `/v1/schedules/${id}/backfill`, { token: key, body });

  it('asks Temporal for the runs due after start up to end, oldest first and none dropped (202, their count)', async () => {
    const s = (await create(a.api_key, { every: '1h', operator_id: 'backfill' })).json;
    const res = await backfill(s.schedule_id, { start: '2026-11-01T00:00:00+08:00', end: '2026-11-02T00:00:00+08:00' });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({
      schedule_id: s.schedule_id,
      start: '2026-10-31T16:00:00.000Z',
      end: '2026-11-01T16:00:00.000Z',
      intervals: 24,
      first_run: '2026-10-31T17:00:00.000Z',
      last_run: '2026-11-01T16:00:00.000Z',
    });
    // Temporal's range includes start: a millisecond past it leaves out the run whose window ends there.
    expect(rt.temporal.of('schedule.backfill')).toContainEqual({
      kind: 'schedule.backfill',
      scheduleId: s.schedule_id,
      start: new Date('2026-10-31T16:00:00.001Z'),
      end: new Date('2026-11-01T16:00:00.000Z'),
      overlap: ScheduleOverlapPolicy.BUFFER_ALL,
    });
    const none = await backfill(s.schedule_id, { start: '2026-11-01T00:10:00Z', end: '2026-11-01T00:50:00Z' });
    expect(none.status).toBe(200);
    expect(none.json).toMatchObject({ intervals: 0, first_run: null, last_run: null });
  });

  it('refuses more than 1,000 intervals and an end not after start (422), a paused schedule and a full buffer (409)', async () => {
    const s = (await create(a.api_key, { every: '1m', operator_id: 'limits' })).json;
    const before = rt.temporal.of('schedule.backfill').length;
    const ok = await backfill(s.schedule_id, { start: '2026-11-01T00:00:00Z', end: '2026-11-01T16:40:00Z' });
    expect(ok.json.intervals).toBe(1000);
    expectError(await backfill(s.schedule_id, { start: '2026-11-01T00:00:00Z', end: '2026-11-01T16:41:00Z' }), 422, 'backfill_too_large');
    for (const body of [
      { start: '2026-11-01T01:00:00Z', end: '2026-11-01T01:00:00Z' },
      { start: '2026-11-02T00:00:00Z', end: '2026-11-01T00:00:00Z' },
      { start: '2026-11-01', end: '2026-11-02T00:00:00Z' },
      { start: '2026-11-01T00:00:00Z' },
      { start: '2026-11-01T00:00:00Z', end: '2026-11-01T01:00:00Z', extra: 1 },
      { start: '1969-12-31T00:00:00Z', end: '2026-11-01T01:00:00Z' },
      { start: '2026-11-01T00:00:00Z', end: new Date(Date.now() + 3_600_000).toISOString() },
    ]) {
      expectError(await backfill(s.schedule_id, body), 422, 'validation_failed');
    }
    rt.temporal.schedules.get(s.schedule_id)!.buffered = 990;
    expectError(await backfill(s.schedule_id, { start: '2026-11-01T00:00:00Z', end: '2026-11-01T00:11:00Z' }), 409, 'conflict');
    rt.temporal.schedules.get(s.schedule_id)!.buffered = 0;
    await rt.call('POST', `/v1/schedules/${s.schedule_id}/pause`, { token: a.api_key, body: {} });
    expectError(await backfill(s.schedule_id, { start: '2026-11-01T00:00:00Z', end: '2026-11-01T01:00:00Z' }), 409, 'schedule_paused');
    expect(rt.temporal.of('schedule.backfill').length).toBe(before + 1);
  });

  it("is a 404 for another project's schedule and a deleted one, and needs a project key", async () => {
    const s = (await create(a.api_key, { every: '2h', operator_id: 'foreign' })).json;
    const body = { start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' };
    expectError(await backfill(s.schedule_id, body, b.api_key), 404, 'not_found');
    await rt.call('DELETE', `/v1/schedules/${s.schedule_id}`, { token: a.api_key });
    expectError(await backfill(s.schedule_id, body), 404, 'not_found');
    await expectKeyRefusals(rt, 'POST', '/v1/schedules/sch_any/backfill', { project: a.api_key }, { body });
  });
});

itCalledItsRoutes('schedules', () => rt);
