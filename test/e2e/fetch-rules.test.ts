// The design's fetch rules against a real source: restart once when the source changes, and the
// lane plan around the 400-page boundary. Retries are in retries.test.ts.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tasks } from '../../db/schema.js';
import { startWithProject, type TestEnv } from '../support/env.js';
import { csvRows, runExport } from '../support/source-runs.js';
import { changesTwice, defaultRow, probes, type SourceServer, sourcePool } from '../support/source-server.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

const run = (src: SourceServer, pageSize?: number, timeoutMs?: number) => runExport(env, key, src, pageSize, timeoutMs);

beforeAll(async () => ({ env, key } = await startWithProject({}, { max_running_tasks: 10 })));

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
    const got = await csvRows(task);
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
    expect((await csvRows(task)).map((r) => Number(r.id))).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
  });

  it('fails with source_changed, saying what changed, when it changes again after the restart', async () => {
    const src: SourceServer = await source({ total: 3000, intercept: changesTwice(() => src) });
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
    const ids = (await csvRows(task)).map((r) => Number(r.id));
    expect(ids).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  }, 120_000);
});
