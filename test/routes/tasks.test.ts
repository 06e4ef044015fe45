// /v1/tasks in process (route-app.ts): submit, list, count and read, with the refusals of each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTask } from '../../domain/tasks/queries.js';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { type Project, type RouteApp, startWithTwoProjects, taskBody } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

let rt: RouteApp;
let a: Project;
let b: Project;
beforeAll(async () => ({ rt, a, b } = await startWithTwoProjects()));
afterAll(() => rt?.close());

describe('POST /v1/tasks', () => {
  it('accepts a task (202, Location, the task queued) and starts its run after the answer', async () => {
    const res = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ file_name: 'orders' }) });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ status: 'queued', operator_id: 'op-1', type: 'csv', project_id: a.project_id });
    expect(res.json.task_id).toMatch(/^tsk_/);
    expect(res.headers.get('location')).toBe(`/v1/tasks/${res.json.task_id}`);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"submit";q=\d+;w=60$/);
    await rt.drained();
    expect(rt.temporal.of('start')).toContainEqual(expect.objectContaining({ workflowType: 'exportWorkflow', workflowId: res.json.task_id }));
  });

  it('answers the same task (200) for the same Idempotency-Key and body, 422 for another body', async () => {
    const headers = { 'idempotency-key': 'order-77' };
    const first = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ operator_id: 'idem' }), headers });
    const again = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ operator_id: 'idem' }), headers });
    expect([first.status, again.status]).toEqual([202, 200]);
    expect(again.json.task_id).toBe(first.json.task_id);
    expectError(await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ operator_id: 'other' }), headers }), 422, 'idempotency_key_reused');
  });

  it('refuses a body out of its schema with 422 naming the fields, bad JSON with 400, a foreign host with 422', async () => {
    const res = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: { source_url: 'not a url', page_size: 5 } });
    expectError(res, 422, 'validation_failed');
    expect(res.json.error.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['source_url', 'operator_id', 'page_size']));
    expectError(await rt.call('POST', '/v1/tasks', { token: a.api_key, raw: '{"source_url":', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
    expectError(await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ source_url: 'https://elsewhere.example/rows' }) }), 422, 'source_host_not_allowed');
  });

  it('keeps notify_email (one address or up to 5, in email_domains) and locale on the task', async () => {
    const mailing = await rt.createProject({ email_domains: ['example.com'] });
    const one = await rt.submit(mailing.api_key, taskBody({ notify_email: 'Ops@Example.com', locale: 'zh-CN' }));
    expect(one).toMatchObject({ notify_email: ['ops@example.com'], locale: 'zh-CN' });
    expect((await rt.call('GET', `/v1/tasks/${one.task_id}`, { token: mailing.api_key })).json.notify_email).toEqual(['ops@example.com']);
    expect(await rt.submit(mailing.api_key, taskBody({ file_name: 'plain' }))).toMatchObject({ notify_email: [], locale: 'en' });
    const post = (body: Record<string, unknown>) => rt.call('POST', '/v1/tasks', { token: mailing.api_key, body: taskBody(body) });
    expectError(await post({ notify_email: 'x@other.com' }), 422, 'email_domain_not_allowed');
    expectError(await post({ notify_email: ['a@example.com', 'not-an-address'] }), 422, 'validation_failed');
    expectError(await post({ notify_email: [] }), 422, 'validation_failed');
    expectError(await post({ notify_email: ['a', 'b', 'c', 'd', 'e', 'f'].map((x) => `${x}@example.com`) }), 422, 'validation_failed');
    expectError(await post({ notify_email: 'a@example.com', locale: 'fr' }), 422, 'validation_failed');
  });

  it('stores csv_bom for a csv task and refuses it for another type with 422 naming it', async () => {
    const res = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ operator_id: 'bom', csv_bom: false }) });
    expect(res.status).toBe(202);
    expect((await getTask(rt.database.db, res.json.task_id))?.options.csv_bom).toBe(false);
    const excel = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ type: 'excel', csv_bom: true }) });
    expectError(excel, 422, 'validation_failed');
    expect(excel.json.error.details.map((d: { field: string }) => d.field)).toEqual(['csv_bom']);
  });

  it('stores the CSV dialect, autofilter and time_zone (its canonical name), and refuses each for a type it is not for', async () => {
    const post = (body: Record<string, unknown>) => rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody(body) });
    const csv = await post({ operator_id: 'dialect', csv_delimiter: '\t', csv_line_ending: 'lf', time_zone: 'asia/shanghai' });
    expect(csv.status).toBe(202);
    expect((await getTask(rt.database.db, csv.json.task_id))?.options).toMatchObject({ csv_delimiter: '\t', csv_line_ending: 'lf', time_zone: 'Asia/Shanghai' });
    const excel = await post({ operator_id: 'dialect', type: 'excel', autofilter: false, time_zone: 'UTC' });
    expect((await getTask(rt.database.db, excel.json.task_id))?.options).toMatchObject({ autofilter: false, time_zone: 'UTC' });
    const refused = async (body: Record<string, unknown>, field: string) => {
      const res = await post(body);
      expectError(res, 422, 'validation_failed');
      expect(res.json.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    };
    await refused({ time_zone: 'Mars/Olympus_Mons' }, 'time_zone');
    await refused({ time_zone: 'x'.repeat(65) }, 'time_zone');
    await refused({ csv_delimiter: ':' }, 'csv_delimiter');
    await refused({ csv_line_ending: 'cr' }, 'csv_line_ending');
    await refused({ type: 'excel', csv_delimiter: ';' }, 'csv_delimiter');
    await refused({ type: 'jsonl', csv_line_ending: 'lf' }, 'csv_line_ending');
    await refused({ autofilter: true }, 'autofilter');
    await refused({ type: 'parquet', time_zone: 'UTC' }, 'time_zone');
  });

  it("fills a csv task's dialect from the project's defaults at submission; the task's own wins; other types get none", async () => {
    const semi = await rt.createProject({ csv_delimiter: ';', csv_line_ending: 'lf', csv_bom: false });
    const post = async (body: Record<string, unknown>) => (await getTask(rt.database.db, (await rt.submit(semi.api_key, taskBody(body))).task_id))!.options;
    expect(await post({ operator_id: 'd1' })).toMatchObject({ csv_delimiter: ';', csv_line_ending: 'lf', csv_bom: false });
    expect(await post({ operator_id: 'd2', csv_delimiter: '|', csv_bom: true })).toMatchObject({ csv_delimiter: '|', csv_line_ending: 'lf', csv_bom: true });
    const excel = await post({ operator_id: 'd3', type: 'excel' });
    expect([excel.csv_delimiter, excel.csv_line_ending, excel.csv_bom]).toEqual([undefined, undefined, undefined]);
    // A project without defaults leaves them out: the renderers' own (comma, CR LF, a BOM) apply.
    const plain = (await getTask(rt.database.db, (await rt.submit(a.api_key, taskBody({ operator_id: 'd4' }))).task_id))!.options;
    expect([plain.csv_delimiter, plain.csv_line_ending, plain.csv_bom]).toEqual([undefined, undefined, undefined]);
  });

  it('needs a project key', async () => {
    await expectKeyRefusals(rt, 'POST', '/v1/tasks', { project: a.api_key }, { body: taskBody() });
  });
});

describe('GET /v1/tasks, /v1/tasks/counts and /v1/tasks/{task_id}', () => {
  it("lists, counts and reads the caller's own tasks only", async () => {
    const mine = await rt.submit(b.api_key, taskBody({ operator_id: 'b-only' }));
    const list = await rt.call('GET', '/v1/tasks?operator_id=b-only', { token: b.api_key });
    expect(list.status).toBe(200);
    expect(list.json.items.map((t: { task_id: string }) => t.task_id)).toEqual([mine.task_id]);
    expect(list.json.next_cursor).toBeNull();
    const counts = await rt.call('GET', '/v1/tasks/counts?operator_id=b-only', { token: b.api_key });
    expect(counts.status).toBe(200);
    expect(counts.json.counts).toMatchObject({ queued: 1 });
    const one = await rt.call('GET', `/v1/tasks/${mine.task_id}`, { token: b.api_key });
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ task_id: mine.task_id, operator_id: 'b-only' });
    // Project A sees none of it, and B's task is as missing to A as one that never existed.
    expect((await rt.call('GET', '/v1/tasks?operator_id=b-only', { token: a.api_key })).json.items).toEqual([]);
    expect((await rt.call('GET', '/v1/tasks/counts?operator_id=b-only', { token: a.api_key })).json.counts.queued ?? 0).toBe(0);
    expectError(await rt.call('GET', `/v1/tasks/${mine.task_id}`, { token: a.api_key }), 404, 'not_found');
    expectError(await rt.call('GET', '/v1/tasks/tsk_nosuchtask', { token: a.api_key }), 404, 'not_found');
  });

  it('pages with a cursor', async () => {
    for (let i = 0; i < 3; i++) await rt.submit(a.api_key, taskBody({ operator_id: 'pager', file_name: `p${i}` }));
    const first = await rt.call('GET', '/v1/tasks?operator_id=pager&limit=2', { token: a.api_key });
    expect(first.json.items).toHaveLength(2);
    const rest = await rt.call('GET', `/v1/tasks?operator_id=pager&limit=2&cursor=${encodeURIComponent(first.json.next_cursor)}`, { token: a.api_key });
    expect(rest.json.items).toHaveLength(1);
    expect(rest.json.next_cursor).toBeNull();
  });

  it('refuses a bad filter with 422 naming it', async () => {
    for (const [query, field] of [['limit=0', 'limit'], ['status=sleeping', 'status'], ['created_after=yesterday', 'created_after']]) {
      const list = await rt.call('GET', `/v1/tasks?${query}`, { token: a.api_key });
      expectError(list, 422, 'validation_failed');
      expect(list.json.error.details[0].field).toBe(field);
    }
    expectError(await rt.call('GET', '/v1/tasks/counts?status=sleeping', { token: a.api_key }), 422, 'validation_failed');
    expectError(await rt.call('GET', '/v1/tasks/tsk_%00', { token: a.api_key }), 422, 'validation_failed');
  });

  it('need a project key', async () => {
    await expectKeyRefusals(rt, 'GET', '/v1/tasks', { project: a.api_key });
    await expectKeyRefusals(rt, 'GET', '/v1/tasks/counts', { project: a.api_key });
    await expectKeyRefusals(rt, 'GET', '/v1/tasks/tsk_any', { project: a.api_key });
  });
});

itCalledItsRoutes('tasks', () => rt);
