import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskStateActivities } from '../../activities/task-state.js';
import { tasks } from '../../db/schema.js';
import { defaultRow, sourcePool } from '../support/source-server.js';
import { startTestEnv, type TestEnv } from '../support/env.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

async function submit(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', ...body }, headers });
}

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

beforeAll(async () => {
  env = await startTestEnv({ MAX_EXPORT_ROWS: '5000' });
  ({ api_key: key } = await env.createProject({ source_hosts: ['127.0.0.1'] }));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

describe('CSV export end to end', () => {
  it('exports every page of a multi-page source, exactly', async () => {
    const src = await source({ total: 1234 });
    const res = await submit({ source_url: src.url, page_size: 100, file_name: '订单/2026:11' });
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(`/v1/tasks/${res.json.task_id}`);
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('succeeded');
    expect(task.progress).toMatchObject({ total_rows: 1234, fetched_rows: 1234, pages_total: 13, pages_done: 13, percent: 100 });
    const [file] = task.files;
    expect(file.name).toBe('订单_2026_11.csv');
    const body = await download(file.url);
    expect(file.bytes).toBe(body.length);
    expect(file.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    expect(body.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const text = body.toString('utf8').slice(1);
    expect(text.split('\r\n')[0]).toBe('id,name,amount,note');
    const records = parse(text, { columns: true }) as Record<string, string>[];
    expect(records).toHaveLength(1234);
    records.forEach((r, i) => {
      const want = defaultRow(i);
      expect(r).toEqual({ id: String(want.id), name: want.name, amount: String(want.amount), note: want.note });
    });
    // probe + 13 pages, each page asked for exactly once
    expect(src.requests[0]).toMatchObject({ page: 0, pageSize: 1 });
    expect(src.requests.slice(1).map((r) => r.page)).toEqual([...Array(13).keys()]);
    const viaApi = await fetch(`${env.base}/v1/tasks/${task.task_id}/download`, { headers: { authorization: `Bearer ${key}` } });
    expect(viaApi.headers.get('content-disposition')).toBe(`attachment; filename="___2026_11.csv"; filename*=UTF-8''${encodeURIComponent('订单_2026_11.csv')}`);
    expect(Buffer.from(await viaApi.arrayBuffer())).toEqual(body);
  });

  it('uses the template leaves as columns and escapes formulas', async () => {
    const template = [{ name: 'id', title: '编号' }, { title: '金额', children: [{ name: 'amount', title: '金额(元)' }, { name: '_', title: 'ignored' }] }, { name: 'formula' }];
    const src = await source({ total: 3, row: (i) => ({ id: i, amount: -i, formula: i === 0 ? '=HYPERLINK("x")' : '-12.5', extra: 'dropped' }) });
    const res = await submit({ source_url: src.url, template });
    const task = await env.waitForTask(res.json.task_id, key);
    const text = (await download(task.files[0].url)).toString('utf8').slice(1);
    expect(text).toBe('编号,金额(元),formula\r\n0,0,"\'=HYPERLINK(""x"")"\r\n1,-1,-12.5\r\n2,-2,-12.5\r\n');
  });

  it('leaves out the byte order mark when csv_bom is false', async () => {
    const src = await source({ total: 2 });
    const res = await submit({ source_url: src.url, csv_bom: false });
    expect(res.status).toBe(202);
    const task = await env.waitForTask(res.json.task_id, key);
    const body = await download(task.files[0].url);
    expect(body.toString('utf8').split('\r\n')[0]).toBe('id,name,amount,note');
    expect(task.files[0].bytes).toBe(body.length);
  });

  it('keeps a succeeded task\'s files when its completion step runs again (a local activity re-run after its workflow task was lost)', async () => {
    const src = await source({ total: 30 });
    const res = await submit({ source_url: src.url });
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('succeeded');
    const { core, config, temporal } = env;
    const acts = createTaskStateActivities({ db: core.database.db, storage: core.storage, config, linkSecret: core.secrets.linkSecret, destinationKeys: core.secrets.destinationKeys, temporal });
    const [row] = await core.database.db.select().from(tasks).where(eq(tasks.id, task.task_id));
    expect(await acts.completeTask({ taskId: task.task_id, files: row!.files!, stages: {} })).toEqual({ ok: true });
    // Answering not ok would make the workflow discard the files as if the task had been cancelled.
    const again = (await env.api('GET', `/v1/tasks/${task.task_id}`, { token: key })).json;
    expect(again).toMatchObject({ status: 'succeeded', files: [{ rows: 30 }] });
    expect((await fetch(again.files[0].url)).status).toBe(200);
  });

  it('completes an empty export (total 0)', async () => {
    const src = await source({ total: 0 });
    const res = await submit({ source_url: src.url });
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('succeeded');
    expect(task.files[0]).toMatchObject({ rows: 0 });
    expect(task.progress.percent).toBe(100);
    expect(src.requests).toHaveLength(1);
  });

  it('retries a source that answers 503 twice, then succeeds', async () => {
    let failures = 0;
    const src = await source({
      total: 250,
      intercept: (r) => (r.pageSize !== 1 && r.page === 1 && failures++ < 2 ? { status: 503, body: 'busy' } : undefined),
    });
    const res = await submit({ source_url: src.url, page_size: 100 });
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('succeeded');
    expect(failures).toBe(3);
    expect(task.files[0].rows).toBe(250);
    expect(src.requests.filter((r) => r.page === 1 && r.pageSize === 100)).toHaveLength(3);
    // pages already stored before the failure are not fetched again
    expect(src.requests.filter((r) => r.page === 0 && r.pageSize === 100)).toHaveLength(1);
  });

  it('fails at once with source_bad_response on a 404, and leaves no file', async () => {
    const src = await source({ total: 500, intercept: (r) => (r.page === 2 ? { status: 404, body: '{}' } : undefined) });
    const res = await submit({ source_url: src.url, page_size: 100 });
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('failed');
    expect(task.error.code).toBe('source_bad_response');
    expect(task.error.message).toMatch(/HTTP 404.*page 2/);
    expect(task.files).toEqual([]);
    expect(src.requests.filter((r) => r.page === 2)).toHaveLength(1);
    expect(await env.core.storage.list(`staging/${task.task_id}`)).toEqual([]);
    expect(await env.core.storage.list(`files/${task.task_id}`)).toEqual([]);
  });

  it('fails with source_bad_response on malformed JSON or a wrong shape', async () => {
    const bad = await source({ total: 10, intercept: () => ({ status: 200, body: '{"total": 10, "data": [' }) });
    const shape = await source({ total: 10, intercept: () => ({ status: 200, body: '{"total": "ten", "data": []}' }) });
    const [a, b] = await Promise.all([submit({ source_url: bad.url }), submit({ source_url: shape.url })]);
    const ta = await env.waitForTask(a.json.task_id, key);
    const tb = await env.waitForTask(b.json.task_id, key);
    expect(ta.error).toEqual({ code: 'source_bad_response', message: expect.stringMatching(/malformed JSON/) });
    expect(tb.error).toEqual({ code: 'source_bad_response', message: expect.stringMatching(/"total"/) });
  });

  it('shows live status, stage and progress while it runs', async () => {
    const src = await source({ total: 2000, delayMs: (r) => (r.pageSize === 100 ? 60 : 0) });
    const res = await submit({ source_url: src.url, page_size: 100 });
    const seen: Array<{ stage: string; fetched: number; percent: number; eta: number | null }> = [];
    const task = await env.waitForTask(res.json.task_id, key, (t) => {
      if (t.status === 'running') seen.push({ stage: t.stage, fetched: t.progress.fetched_rows, percent: t.progress.percent, eta: t.progress.eta_seconds });
      return t.status === 'succeeded';
    });
    expect(task.started_at).not.toBeNull();
    const fetching = seen.filter((s) => s.stage === 'fetching' && s.fetched > 0 && s.fetched < 2000);
    expect(fetching.length).toBeGreaterThan(2);
    expect(fetching.every((s, i) => i === 0 || s.fetched >= fetching[i - 1]!.fetched)).toBe(true);
    expect(fetching.some((s) => s.percent > 0 && s.percent < 100 && s.eta !== null)).toBe(true);
  });

  it('refuses a source whose total is over MAX_EXPORT_ROWS at the probe, fetching nothing more', async () => {
    const src = await source({ total: 5001 });
    const res = await submit({ source_url: src.url });
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('failed');
    expect(task.error).toEqual({ code: 'export_too_large', message: expect.stringMatching(/5001 rows.*at most 5000/) });
    expect(src.requests).toHaveLength(1);
  });

  it('sends the filters in source_url back unchanged on every call', async () => {
    const src = await source({ total: 150 });
    const url = `${src.url}?month=2026-11&shop=${encodeURIComponent('上海 徐汇')}&tag=a&tag=b`;
    const res = await submit({ source_url: url, page_size: 100 });
    await env.waitForTask(res.json.task_id, key);
    expect(src.requests).toHaveLength(3);
    for (const r of src.requests) {
      expect(r.query.get('month')).toBe('2026-11');
      expect(r.query.get('shop')).toBe('上海 徐汇');
      expect(r.query.getAll('tag')).toEqual(['a', 'b']);
    }
  });
});
