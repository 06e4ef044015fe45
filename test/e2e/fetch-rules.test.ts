// The design's fetch rules against a real source: restart once when the source changes, and the
// lane plan around the 400-page boundary. Retries are in retries.test.ts.
import { parse } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tasks } from '../../db/schema.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { defaultRow, type SourceServer, sourcePool } from '../support/source-server.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

async function run(src: SourceServer, pageSize = 100, timeoutMs = 60_000) {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', page_size: pageSize } });
  expect(res.status).toBe(202);
  return env.waitForTask(res.json.task_id, key, undefined, timeoutMs);
}

async function rows(task: any): Promise<Record<string, string>[]> {
  const body = Buffer.from(await (await fetch(task.files[0].url)).arrayBuffer());
  return parse(body.toString('utf8').slice(1), { columns: true }) as Record<string, string>[];
}

const pageRequests = (src: SourceServer, page: number) => src.requests.filter((r) => r.pageSize !== 1 && r.page === page);
const probes = (src: SourceServer) => src.requests.filter((r) => r.pageSize === 1);

beforeAll(async () => {
  env = await startTestEnv();
  ({ api_key: key } = await env.createProject({ max_running_tasks: 10 }));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

describe('the source changes mid-export', () => {
  it('restarts once from a clean slate when the total changes, then succeeds with the new total', async () => {
    let stagedAtRestart: Promise<string[]> | undefined;
    let taskId = '';
    const src = await source({
      total: 3000,
      intercept: (r) => {
        if (r.pageSize !== 1 && r.page === 10 && src.options.total === 3000) src.options.total = 3100;
        if (r.pageSize === 1 && probes(src).length === 2) stagedAtRestart = env.core.storage.list(`staging/${taskId}/pages`);
        return undefined;
      },
    });
    const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', page_size: 100 } });
    taskId = res.json.task_id;
    const task = await env.waitForTask(taskId, key);
    expect(task.status).toBe('succeeded');
    expect(probes(src)).toHaveLength(2);
    expect(await stagedAtRestart).toEqual([]);
    expect(task.progress).toMatchObject({ total_rows: 3100, pages_total: 31, pages_done: 31 });
    const got = await rows(task);
    expect(got).toHaveLength(3100);
    expect(got.map((r) => Number(r.id))).toEqual(Array.from({ length: 3100 }, (_, i) => defaultRow(i).id));
  });

  it('restarts once when a middle page comes back short', async () => {
    let shortened = false;
    const src = await source({
      total: 1000,
      intercept: (r) => {
        if (r.pageSize === 1 || r.page !== 4 || shortened) return undefined;
        shortened = true;
        return { status: 200, body: JSON.stringify({ total: 1000, data: [defaultRow(400)] }) };
      },
    });
    const task = await run(src);
    expect(task.status).toBe('succeeded');
    expect(probes(src)).toHaveLength(2);
    expect((await rows(task)).map((r) => Number(r.id))).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
  });

  it('fails with source_changed, saying what changed, when it changes again after the restart', async () => {
    const src = await source({
      total: 3000,
      intercept: (r) => {
        if (r.pageSize !== 1 && r.page === 5 && pageRequests(src, 5).length === 1) src.options.total = 3100;
        if (r.pageSize !== 1 && r.page === 7 && src.options.total === 3100 && probes(src).length === 2) src.options.total = 2950;
        return undefined;
      },
    });
    const task = await run(src);
    expect(task.status).toBe('failed');
    expect(task.error.code).toBe('source_changed');
    expect(task.error.message).toBe("the source changed again after the export had restarted once: the source's total changed from 3100 to 2950 (seen on page 7)");
    expect(task.files).toEqual([]);
    expect(probes(src)).toHaveLength(2);
    expect(await env.core.storage.list(`staging/${task.task_id}`)).toEqual([]);
  });
});

describe('lanes around the 400-page boundary', () => {
  const laneCount = async (taskId: string) => {
    const [row] = await env.core.database.db.select({ lanes: tasks.lanes }).from(tasks).where(eq(tasks.id, taskId));
    return Object.keys(row!.lanes).length;
  };

  it.each([
    [40_000, 1],
    [40_001, 5],
  ])('total %i at page_size 100 runs %i lane(s) and keeps the global row order', async (total, lanes) => {
    const src = await source({ total, delayMs: () => 2 });
    const task = await run(src, 100, 120_000);
    expect(task.status).toBe('succeeded');
    expect(await laneCount(task.task_id)).toBe(lanes);
    expect(src.maxInFlight()).toBe(lanes);
    const ids = (await rows(task)).map((r) => Number(r.id));
    expect(ids).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  }, 120_000);
});
