import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRow, sourcePool } from '../support/source-server.js';
import { startTestEnv, type TestEnv } from '../support/env.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  // A small limit and a single slot keep the sources small and make "no slot free" reachable.
  env = await startTestEnv({ SYNC_MAX_ROWS: '500', SYNC_SLOTS: '1', SYNC_TIMEOUT_MS: '30000', MAX_PARTS: '100' });
  ({ api_key: key } = await env.createProject({ source_hosts: ['127.0.0.1'] }));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});


function sync(body: Record<string, unknown>) {
  return fetch(`${env.base}/v1/tasks/sync`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ operator_id: 'op-sync', page_size: 100, ...body }),
  });
}

describe('POST /v1/tasks/sync', () => {
  it('answers with the file itself for a small source, and records the task', async () => {
    const src = await source({ total: 300 });
    const res = await sync({ source_url: src.url, file_name: '对账单 11月' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="___ 11_.csv"; filename*=UTF-8''${encodeURIComponent('对账单 11月.csv')}`);
    const taskId = res.headers.get('x-task-id')!;
    const text = Buffer.from(await res.arrayBuffer()).toString('utf8').slice(1);
    const rows = parse(text, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(300);
    expect(rows[299]!.name).toBe(defaultRow(299).name);
    // a workflow ran it: recorded, listed and visible in Temporal; its steps were local activities,
    // and without a worker sharing the API's connection its run went through the task queue
    const task = await env.api('GET', `/v1/tasks/${taskId}`, { token: key });
    expect(task.json).toMatchObject({ status: 'succeeded', operator_id: 'op-sync', files: [{ rows: 300 }], progress: { total_rows: 300 } });
    const listed = await env.api('GET', '/v1/tasks?operator_id=op-sync', { token: key });
    expect(listed.json.items.map((t: any) => t.task_id)).toContain(taskId);
    const handle = env.temporal.workflow.getHandle(taskId);
    const described = await handle.describe();
    expect(described.type).toBe('syncExportWorkflow');
    // handed out first (the caller waits), the task keeping its own priority
    expect(described.priority?.priorityKey).toBe(1);
    expect(task.json.priority).toBe(3);
    // the answer may leave before the run's workflow task completes (the task row is final first)
    expect(await handle.result()).toEqual({ status: 'succeeded' });
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
    expect(events.filter((e) => e.markerRecordedEventAttributes).length).toBeGreaterThan(5);
    expect(res.headers.get('server-timing')).toMatch(/start;dur=[0-9.]+;desc="task queue"/);
  });

  it('degrades to 202 with the task when the source is over the sync limit', async () => {
    const src = await source({ total: 1200 });
    const res = await sync({ source_url: src.url });
    expect(res.status).toBe(202);
    expect(res.headers.get('x-sync-fallback')).toBe('over_row_limit');
    const body: any = await res.json();
    expect(res.headers.get('location')).toBe(`/v1/tasks/${body.task_id}`);
    expect(body.progress.total_rows).toBe(1200);
    const task = await env.waitForTask(body.task_id, key);
    expect(task.status).toBe('succeeded');
    expect(task.files[0].rows).toBe(1200);
    // the sync run put it back in the queue (a slot was free) and continued as the ordinary export
    expect((await env.temporal.workflow.getHandle(body.task_id).describe()).type).toBe('exportWorkflow');
  });

  it('degrades to 202 at once when every sync slot is busy', async () => {
    const slow = await source({ total: 400, delayMs: (r) => (r.pageSize === 1 ? 0 : 300) });
    const quick = await source({ total: 10 });
    const first = sync({ source_url: slow.url });
    // wait until the first request holds the only slot (its task is fetching)
    await expect.poll(() => slow.requests.length, { timeout: 10_000 }).toBeGreaterThan(1);
    const t0 = Date.now();
    const second = await sync({ source_url: quick.url });
    expect(second.status).toBe(202);
    expect(second.headers.get('x-sync-fallback')).toBe('no_free_slot');
    expect(Date.now() - t0).toBeLessThan(2000);
    const firstRes = await first;
    expect(firstRes.status).toBe(200);
    expect((await firstRes.text()).split('\r\n').filter(Boolean)).toHaveLength(401);
    // and the slot is free again
    const third = await sync({ source_url: `${quick.url}?again=1` });
    expect(third.status).toBe(200);
  });

  it("answers a failed export with the task's error code", async () => {
    const src = await source({ total: 200, intercept: (r) => (r.page === 1 ? { status: 404, body: '{}' } : undefined) });
    const res = await sync({ source_url: src.url });
    expect(res.status).toBe(502);
    const body: any = await res.json();
    expect(body.error).toMatchObject({ code: 'source_bad_response', message: expect.stringMatching(/HTTP 404/) });
  });

  it('answers 422 too_many_parts when the split limits would make more than MAX_PARTS files, after the probe alone', async () => {
    const src = await source({ total: 300 });
    // 300 rows at 2 a file: 150 files, over MAX_PARTS (100 here).
    const res = await sync({ source_url: src.url, max_file_rows: 2 });
    expect(res.status).toBe(422);
    const body: any = await res.json();
    expect(body.error).toMatchObject({ code: 'too_many_parts', message: expect.stringMatching(/300 rows at 2 a file make 150 files; a task may have at most 100 files/) });
    expect(src.requests.map((r) => r.pageSize)).toEqual([1]);
  });

  it('answers a value that does not fit its template type with 422 render_failed, naming row and column', async () => {
    const src = await source({ total: 20, row: (i) => ({ id: i + 1, amount: i === 12 ? 'n/a' : i * 10 }) });
    const template = [{ name: 'id', type: 'integer' }, { name: 'amount', type: 'integer' }];
    const res = await sync({ source_url: src.url, type: 'parquet', template });
    // The source's data, not a fault of ours: never a 500.
    expect(res.status).toBe(422);
    const body: any = await res.json();
    expect(body.error).toMatchObject({ code: 'render_failed', message: expect.stringMatching(/row 13, column "amount": "n\/a" is not an integer/) });
  });

  it('validates the body like POST /v1/tasks', async () => {
    const res = await sync({ source_url: 'not a url' });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).error.details[0].field).toBe('source_url');
  });
});
