// Schedules on Temporal Schedules: each run an ordinary task carrying schedule_id, its date filling
// the {{date}} placeholders; pause, resume, delete, trigger; overlap skip; the failure streak.
import { ScheduleNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let project: { project_id: string; api_key: string; webhook_secret: string };
let key: string;
const { source, closeSources } = sourcePool();
const receivers: Receiver[] = [];

beforeAll(async () => {
  env = await startTestEnv();
  project = await env.createProject({ source_hosts: ['127.0.0.1'], callback_hosts: ['127.0.0.1'], max_running_tasks: 10 });
  key = project.api_key;
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await closeSources();
  await env?.close();
});

const create = (body: Record<string, unknown>, token = key) => env.api('POST', '/v1/schedules', { token, body: { operator_id: 'reports', ...body } });
const lastTrigger = new Map<string, number>();
/**
 * POST /v1/schedules/:id/<action>. Temporal names a run by its schedule and the second it is due,
 * so a trigger in the same second as the schedule's last one would be that run: triggers are spaced.
 */
async function act(id: string, action: string, body?: unknown) {
  if (action === 'trigger') {
    const wait = (lastTrigger.get(id) ?? 0) + 1100 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lastTrigger.set(id, Date.now());
  }
  return env.api('POST', `/v1/schedules/${id}/${action}`, { token: key, ...(body ? { body } : {}) });
}
const runsOf = async (id: string) => (await env.api('GET', `/v1/tasks?schedule_id=${id}`, { token: key })).json.items as any[];

/** Polls until `until` holds for the schedule's tasks, or fails after timeoutMs. */
async function waitForRuns(id: string, until: (tasks: any[]) => boolean, timeoutMs = 30_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const items = await runsOf(id);
    if (until(items)) return items;
    if (Date.now() > deadline) throw new Error(`schedule ${id}: ${JSON.stringify(items.map((t) => t.status))}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** A date as a calendar date in a time zone: YYYY-MM-DD. */
const dateIn = (at: Date, timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

describe('a schedule triggered now', () => {
  it('runs an ordinary task with schedule_id, the date placeholders filled in the schedule time zone, its callback delivered', async () => {
    const src = await source({ total: 30 });
    const hook = await startReceiver(project.webhook_secret);
    receivers.push(hook);
    const res = await create({
      cron: '0 2 * * *',
      timezone: 'Asia/Shanghai',
      source_url: `${src.url}?day={{date}}&from={{ yesterday }}&month={{month}}&prev={{last_month}}`,
      file_name: 'orders-{{date}}',
      callback: hook.url,
    });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const s = res.json;
    expect(res.headers.get('location')).toBe(`/v1/schedules/${s.schedule_id}`);
    expect(s).toMatchObject({ cron: '0 2 * * *', every: null, timezone: 'Asia/Shanghai', overlap: 'skip', pause_after_failures: 3, paused: false, note: null, last_run: null });
    expect(s.task).toMatchObject({ file_name: 'orders-{{date}}', operator_id: 'reports', type: 'csv' });
    // 02:00 in Shanghai is 18:00 UTC.
    expect(s.next_runs[0]).toMatch(/T18:00:00\.000Z$/);
    const temporal = await env.temporal.schedule.getHandle(s.schedule_id).describe();
    expect(temporal.spec).toMatchObject({ timezone: 'Asia/Shanghai' });

    expect((await act(s.schedule_id, 'trigger')).status).toBe(202);
    const [run] = await waitForRuns(s.schedule_id, (t) => t.length === 1 && t[0].status === 'succeeded');
    const day = dateIn(new Date(run.created_at), 'Asia/Shanghai');
    expect(run).toMatchObject({ schedule_id: s.schedule_id, operator_id: 'reports', file_name: `orders-${day}`, files: [{ name: `orders-${day}.csv`, rows: 30 }] });
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    const yesterday = new Date(Date.UTC(y, m - 1, d - 1)).toISOString().slice(0, 10);
    const prev = new Date(Date.UTC(y, m - 2, 1)).toISOString().slice(0, 7);
    expect(run.source_url).toBe(`${src.url}?day=${day}&from=${yesterday}&month=${day.slice(0, 7)}&prev=${prev}`);
    expect(new Set(src.requests.map((r) => r.query.get('day')))).toEqual(new Set([day]));
    // Callbacks, downloads and retention apply as to any task.
    const [delivered] = await hook.waitFor(1);
    expect(delivered!.payload).toMatchObject({ event: 'task.succeeded', task: { task_id: run.task_id, schedule_id: s.schedule_id } });
    expect(run.expires_at).not.toBeNull();
    const file = await fetch(run.files[0].url);
    expect(file.status).toBe(200);

    const after = (await env.api('GET', `/v1/schedules/${s.schedule_id}`, { token: key })).json;
    expect(after.last_run).toMatchObject({ outcome: 'submitted', task_id: run.task_id });
    expect((await env.api('GET', `/v1/tasks/counts?schedule_id=${s.schedule_id}`, { token: key })).json.counts.succeeded).toBe(1);
  });

  it('skips a run while the previous run’s task is still live (overlap skip, the default); allow_all does not', async () => {
    const slow = await source({ total: 400, delayMs: (r) => (r.pageSize === 1 ? 0 : 400) });
    const s = (await create({ every: '1d', source_url: slow.url, page_size: 100 })).json;
    await act(s.schedule_id, 'trigger');
    const [first] = await waitForRuns(s.schedule_id, (t) => t.length === 1);
    await act(s.schedule_id, 'trigger');
    await expect.poll(async () => (await env.api('GET', `/v1/schedules/${s.schedule_id}`, { token: key })).json.last_run?.outcome, { timeout: 15_000 }).toBe('skipped');
    expect((await runsOf(s.schedule_id)).map((t) => t.task_id)).toEqual([first.task_id]);
    expect((await env.api('DELETE', `/v1/schedules/${s.schedule_id}`, { token: key })).status).toBe(204);

    const all = (await create({ every: '1d', source_url: `${slow.url}?all=1`, page_size: 100, overlap: 'allow_all' })).json;
    await act(all.schedule_id, 'trigger');
    await waitForRuns(all.schedule_id, (t) => t.length === 1);
    await act(all.schedule_id, 'trigger');
    await waitForRuns(all.schedule_id, (t) => t.length === 2);
    await env.api('DELETE', `/v1/schedules/${all.schedule_id}`, { token: key });
  });

  it('lets runs that start together submit one at a time: one task, the other run skipped', async () => {
    const slow = await source({ total: 400, delayMs: (r) => (r.pageSize === 1 ? 0 : 400) });
    const s = (await create({ cron: '0 5 * * *', source_url: slow.url, page_size: 100 })).json;
    // Two runs at once, as a due run and a trigger can meet: started as the Schedule starts them.
    const runs = await Promise.all(
      ['a', 'b'].map((n) => env.temporal.workflow.start('scheduledRunWorkflow', { taskQueue: env.config.TEMPORAL_TASK_QUEUE, workflowId: `${s.schedule_id}.test-${n}`, args: [{ scheduleId: s.schedule_id }] })),
    );
    const outcomes = (await Promise.all(runs.map((r) => r.result()))).map((o: any) => o.outcome).sort();
    expect(outcomes).toEqual(['skipped', 'submitted']);
    expect(await runsOf(s.schedule_id)).toHaveLength(1);
    await env.api('DELETE', `/v1/schedules/${s.schedule_id}`, { token: key });
  });
});

describe('managing schedules', () => {
  it('pauses with a note, resumes, lists and deletes, in Temporal too', async () => {
    const src = await source({ total: 3 });
    const s = (await create({ every: '1h30m', source_url: src.url })).json;
    expect(s.every).toBe('1h30m');
    const [a, b] = s.next_runs.map((t: string) => Date.parse(t));
    expect(b - a).toBe(90 * 60_000);

    const paused = await act(s.schedule_id, 'pause', { note: 'month-end freeze' });
    expect(paused.json).toMatchObject({ paused: true, note: 'month-end freeze' });
    expect((await env.temporal.schedule.getHandle(s.schedule_id).describe()).state).toMatchObject({ paused: true, note: 'month-end freeze' });
    const listed = (await env.api('GET', '/v1/schedules', { token: key })).json.items;
    expect(listed.find((x: any) => x.schedule_id === s.schedule_id)).toMatchObject({ paused: true, note: 'month-end freeze' });

    const resumed = await act(s.schedule_id, 'resume');
    expect(resumed.json).toMatchObject({ paused: false, note: null });
    expect((await env.temporal.schedule.getHandle(s.schedule_id).describe()).state.paused).toBe(false);

    // Another project sees nothing of it.
    const other = await env.createProject({ source_hosts: ['127.0.0.1'] });
    expect((await env.api('GET', `/v1/schedules/${s.schedule_id}`, { token: other.api_key })).status).toBe(404);
    expect((await env.api('DELETE', `/v1/schedules/${s.schedule_id}`, { token: other.api_key })).status).toBe(404);

    expect((await env.api('DELETE', `/v1/schedules/${s.schedule_id}`, { token: key })).status).toBe(204);
    expect((await env.api('GET', `/v1/schedules/${s.schedule_id}`, { token: key })).status).toBe(404);
    await expect(env.temporal.schedule.getHandle(s.schedule_id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it('pauses a schedule whose runs fail pause_after_failures times in a row, saying why', async () => {
    const broken = await source({ total: 3, intercept: () => ({ status: 404, body: '{}' }) });
    const s = (await create({ cron: '0 3 1 * *', source_url: broken.url, pause_after_failures: 2 })).json;
    await act(s.schedule_id, 'trigger');
    await waitForRuns(s.schedule_id, (t) => t.length === 1 && t[0].status === 'failed');
    expect((await env.api('GET', `/v1/schedules/${s.schedule_id}`, { token: key })).json.paused).toBe(false);
    await act(s.schedule_id, 'trigger');
    const runs = await waitForRuns(s.schedule_id, (t) => t.length === 2 && t.every((x) => x.status === 'failed'));
    await expect.poll(async () => (await env.api('GET', `/v1/schedules/${s.schedule_id}`, { token: key })).json.paused, { timeout: 10_000 }).toBe(true);
    const after = (await env.api('GET', `/v1/schedules/${s.schedule_id}`, { token: key })).json;
    expect(after.note).toMatch(new RegExp(`^paused after 2 runs in a row failed; the last, task ${runs[0].task_id}, with source_bad_response: source answered HTTP 404`));
    const temporal = await env.temporal.schedule.getHandle(s.schedule_id).describe();
    expect(temporal.state).toMatchObject({ paused: true, note: after.note });
    // A resume counts afresh: one more failure does not pause it again.
    await act(s.schedule_id, 'resume');
    await act(s.schedule_id, 'trigger');
    await waitForRuns(s.schedule_id, (t) => t.length === 3 && t.every((x) => x.status === 'failed'));
    await new Promise((r) => setTimeout(r, 500));
    expect((await env.api('GET', `/v1/schedules/${s.schedule_id}`, { token: key })).json.paused).toBe(false);
  });
});

describe('refusals', () => {
  it('answers 422 naming the field for a bad cron, an unknown time zone, an interval under a minute and bad placeholders', async () => {
    const url = (await source({ total: 1 })).url;
    const cases: Array<[Record<string, unknown>, string, RegExp?]> = [
      [{ cron: '61 2 * * *' }, 'cron', /Minute is not in range/],
      [{ cron: 'every day' }, 'cron', /5-7 fields/],
      [{ cron: '0 0 31 2 *' }, 'cron', /never fires/],
      [{ cron: '0 2 * * *', timezone: 'Mars/Olympus_Mons' }, 'timezone', /unknown time zone/],
      [{ cron: 'CRON_TZ=Asia/Tokyo 0 2 * * *' }, 'cron'],
      [{ every: '30s' }, 'every', /at least one minute/],
      [{ every: 'daily' }, 'every'],
      [{}, 'cron'],
      [{ cron: '0 2 * * *', every: '1h' }, 'every'],
      [{ cron: '0 2 * * *', file_name: 'x-{{week}}' }, 'file_name', /unknown placeholder \{\{week\}\}/],
      [{ cron: '0 2 * * *', source_url: 'http://127.0.0.1:1/{{date}}/x' }, 'source_url', /only in the query/],
      [{ cron: '0 2 * * *', overlap: 'buffer' }, 'overlap'],
      [{ cron: '0 2 * * *', pause_after_failures: 0 }, 'pause_after_failures'],
      [{ cron: '0 2 * * *', source_url: 'http://elsewhere.example/x?d={{date}}' }, 'source_url'],
    ];
    for (const [body, field, message] of cases) {
      const res = await create({ source_url: url, ...body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      const detail = res.json.error.details.find((d: { field: string }) => d.field === field);
      expect(detail, JSON.stringify(res.json)).toBeDefined();
      if (message) expect(detail.message).toMatch(message);
    }
    // Nothing was kept of a schedule Temporal refused.
    expect((await env.api('GET', '/v1/schedules?limit=100', { token: key })).json.items.filter((s: any) => s.cron === '61 2 * * *')).toEqual([]);
  });

  it('counts schedules against the project limit', async () => {
    const p = await env.createProject({ source_hosts: ['127.0.0.1'], max_schedules: 1 });
    const url = (await source({ total: 1 })).url;
    expect((await create({ cron: '0 2 * * *', source_url: url }, p.api_key)).status).toBe(201);
    const over = await create({ cron: '0 4 * * *', source_url: url }, p.api_key);
    expect([over.status, over.json.error.code]).toEqual([409, 'schedule_limit_reached']);
    expect((await env.api('GET', `/v1/projects/${p.project_id}`, { token: p.api_key })).json.max_schedules).toBe(1);
  });
});
