// Incremental windows on the real Temporal dev server (the time-skipping test server has no
// Schedules API): {{interval_start}} / {{interval_end}} from the previous due time to this one, in the
// schedule's time zone; a backfill runs every interval of a range, oldest first, none skipped or
// dropped; across a DST change the windows still tile the time line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dueBetween, windowOf } from '../../domain/schedules/windows.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  env = await startTestEnv();
  key = (await env.createProject({ source_hosts: ['127.0.0.1'], max_running_tasks: 10, submit_per_minute: 600 })).api_key;
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

const create = (body: Record<string, unknown>) => env.api('POST', '/v1/schedules', { token: key, body: { operator_id: 'windows', ...body } });
const runsOf = async (id: string) => (await env.api('GET', `/v1/tasks?schedule_id=${id}&limit=100`, { token: key })).json.items as any[];

async function waitForRuns(id: string, until: (tasks: any[]) => boolean, timeoutMs = 120_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await runsOf(id);
    if (until(items)) return items;
    if (Date.now() > deadline) throw new Error(`schedule ${id}: ${items.length} tasks, ${JSON.stringify(items.map((t) => t.status))}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A task's window, read back from the query its source_url was sent with. */
const windowOfTask = (t: any) => {
  const q = new URL(t.source_url).searchParams;
  return { from: q.get('from')!, to: q.get('to')!, task: t };
};
const ms = (iso: string) => Date.parse(iso);

/** The windows in order: each begins where the one before ended (no gap, no overlap). */
function expectTiled(windows: Array<{ from: string; to: string }>) {
  for (let i = 1; i < windows.length; i++) expect(windows[i]!.from, `window ${i}`).toBe(windows[i - 1]!.to);
  for (const w of windows) expect(ms(w.to)).toBeGreaterThan(ms(w.from));
}

describe('windows of runs due on the calendar', () => {
  it('gives three consecutive runs consecutive windows, ISO 8601 in the schedule’s time zone, percent-encoded in the URL', async () => {
    const src = await source({ total: 3 });
    // Every three seconds (seconds and year fields): three runs come within seconds.
    const res = await create({
      cron: '*/3 * * * * * *',
      timezone: 'Asia/Kolkata',
      overlap: 'allow_all',
      source_url: `${src.url}?from={{interval_start}}&to={{ interval_end }}`,
      file_name: 'orders-{{interval_start}}',
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const id = res.json.schedule_id;
    try {
      await waitForRuns(id, (t) => t.length >= 3);
    } finally {
      await env.api('POST', `/v1/schedules/${id}/pause`, { token: key, body: {} });
    }
    const windows = (await runsOf(id)).map(windowOfTask).sort((a, b) => ms(a.to) - ms(b.to)).slice(0, 3);
    expectTiled(windows);
    for (const w of windows) {
      // +05:30 (India keeps no DST); each run due on the 3-second grid, its window 3 s long.
      expect(w.from).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30$/);
      expect(w.to).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30$/);
      expect(ms(w.to) - ms(w.from)).toBe(3000);
      expect(new Date(ms(w.to)).getUTCSeconds() % 3).toBe(0);
      // The "+" reached the source as "+", not as a space: it was percent-encoded.
      expect(w.task.source_url).toContain(`from=${encodeURIComponent(w.from)}`);
      // A file name cannot carry ":": the basic format.
      expect(w.task.file_name).toBe(`orders-${w.from.replace(/[-:]/g, '')}`);
    }
    // Three runs exist once made; the source hears from each only when it has run.
    const ids = new Set(windows.map((w) => w.task.task_id));
    await waitForRuns(id, (t) => t.filter((x) => ids.has(x.task_id) && x.status === 'succeeded').length === 3);
    const asked = src.requests.map((r) => r.query.get('to'));
    expect(asked).toEqual(expect.arrayContaining(windows.map((w) => w.to)));
    await env.api('DELETE', `/v1/schedules/${id}`, { token: key });
  });
});

describe('backfill', () => {
  it('runs a day of hourly windows as 24 tasks, oldest first, tiling the day with no gap and no overlap', async () => {
    const src = await source({ total: 2 });
    // overlap: skip (the default) never skips a backfill's runs.
    const res = await create({ cron: '0 * * * *', timezone: 'Asia/Shanghai', source_url: `${src.url}?from={{interval_start}}&to={{interval_end}}` });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const id = res.json.schedule_id;
    const day = { start: '2026-11-20T00:00:00+08:00', end: '2026-11-21T00:00:00+08:00' };
    const bf = await env.api('POST', `/v1/schedules/${id}/backfill`, { token: key, body: day });
    expect(bf.status, JSON.stringify(bf.json)).toBe(202);
    expect(bf.json).toMatchObject({ intervals: 24, first_run: '2026-11-19T17:00:00.000Z', last_run: '2026-11-20T16:00:00.000Z' });

    const tasks = await waitForRuns(id, (t) => t.length === 24 && t.every((x) => x.status === 'succeeded'), 240_000);
    // Made oldest first: in the order they were created, the windows run forward.
    const byCreation = [...tasks].sort((a, b) => ms(a.created_at) - ms(b.created_at) || a.task_id.localeCompare(b.task_id)).map(windowOfTask);
    expectTiled(byCreation);
    expect(byCreation[0]!.from).toBe(day.start);
    expect(byCreation[23]!.to).toBe(day.end);
    for (const w of byCreation) expect(ms(w.to) - ms(w.from)).toBe(3_600_000);

    // The same range again: 24 more tasks (a backfill runs again what ran before), none dropped.
    const again = await env.api('POST', `/v1/schedules/${id}/backfill`, { token: key, body: { start: day.start, end: '2026-11-20T02:00:00+08:00' } });
    expect(again.json.intervals).toBe(2);
    await waitForRuns(id, (t) => t.length === 26);
    await env.api('DELETE', `/v1/schedules/${id}`, { token: key });
  });

  it("counts a run refused for a quota among the backfill's done runs; the schedule stays active", async () => {
    // A monthly rows quota of 0 is reached before any task: every run's submission is refused.
    const capped = (await env.createProject({ source_hosts: ['127.0.0.1'], quota_monthly_rows: 0 })).api_key;
    const res = await env.api('POST', '/v1/schedules', { token: capped, body: { operator_id: 'windows', cron: '0 * * * *', source_url: 'http://127.0.0.1:9/rows' } });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const id = res.json.schedule_id;
    const bf = await env.api('POST', `/v1/schedules/${id}/backfill`, { token: capped, body: { start: '2026-11-20T00:00:00Z', end: '2026-11-20T03:00:00Z' } });
    expect(bf.status, JSON.stringify(bf.json)).toBe(202);
    expect(bf.json.intervals).toBe(3);
    const deadline = Date.now() + 120_000;
    let s = (await env.api('GET', `/v1/schedules/${id}`, { token: capped })).json;
    while (s.backfill?.done !== 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      s = (await env.api('GET', `/v1/schedules/${id}`, { token: capped })).json;
    }
    expect(s).toMatchObject({ paused: false, paused_reason: null, backfill: { done: 3, total: 3 } });
    expect((await env.api('GET', `/v1/tasks?schedule_id=${id}`, { token: capped })).json.items).toEqual([]);
    await env.api('DELETE', `/v1/schedules/${id}`, { token: capped });
  });

  it('refuses a paused schedule (409), more than 1,000 intervals and an end not after start (422)', async () => {
    const res = await create({ every: '1m', source_url: 'http://127.0.0.1:9/rows' });
    const id = res.json.schedule_id;
    const post = (body: unknown) => env.api('POST', `/v1/schedules/${id}/backfill`, { token: key, body });
    const big = await post({ start: '2026-11-01T00:00:00Z', end: '2026-11-01T16:41:00Z' });
    expect(big.status).toBe(422);
    expect(big.json.error.code).toBe('backfill_too_large');
    expect((await post({ start: '2026-11-01T01:00:00Z', end: '2026-11-01T00:00:00Z' })).json.error.code).toBe('validation_failed');
    await env.api('POST', `/v1/schedules/${id}/pause`, { token: key, body: {} });
    const paused = await post({ start: '2026-11-01T00:00:00Z', end: '2026-11-01T00:05:00Z' });
    expect(paused.status).toBe(409);
    expect(paused.json.error.code).toBe('schedule_paused');
    expect(await runsOf(id)).toEqual([]);
    await env.api('DELETE', `/v1/schedules/${id}`, { token: key });
  });
});

describe('windows across a DST change (Europe/Berlin, hourly)', () => {
  it('tiles the day: autumn’s repeated hour is one window of two hours, spring’s missing hour none', async () => {
    const res = await create({ cron: '0 * * * *', timezone: 'Europe/Berlin', source_url: 'http://127.0.0.1:9/rows?from={{interval_start}}' });
    const id = res.json.schedule_id;
    const deps = { temporal: env.temporal, config: env.config };
    const windowsOf = async (start: string, end: string) => {
      const due = await dueBetween(deps, id, new Date(start), new Date(end), 1000);
      return Promise.all(due.map(async (at) => windowOf(deps, id, at, new Date(0))));
    };
    // 25 October 2026: 03:00 CEST becomes 02:00 CET. Temporal fires 02:00 once.
    const autumn = await windowsOf('2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z');
    expect(autumn).toHaveLength(24);
    const autumnIso = autumn.map((w) => ({ from: w.start.toISOString(), to: w.end.toISOString() }));
    expectTiled(autumnIso);
    expect(autumn.filter((w) => w.end.getTime() - w.start.getTime() === 7_200_000).map((w) => w.end.toISOString())).toEqual(['2026-10-25T02:00:00.000Z']);
    // 29 March 2026: 02:00 CET becomes 03:00 CEST; no run is due at the hour that does not exist.
    const spring = await windowsOf('2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z');
    expect(spring).toHaveLength(23);
    expectTiled(spring.map((w) => ({ from: w.start.toISOString(), to: w.end.toISOString() })));
    expect(spring.every((w) => w.end.getTime() - w.start.getTime() === 3_600_000)).toBe(true);
    await env.api('DELETE', `/v1/schedules/${id}`, { token: key });
  });
});
