// MAX_PARTS through the whole service (docs/operations.md#bounds-of-one-render): the task
// (max_file_rows: 1 over 20,000 rows) fails too_many_parts at its probe, before any page is fetched;
// a byte limit that makes too many parts fails it at the render, before the part past the cap is
// written, with no file listed; and the worker goes on serving the next export either way.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();
const MAX_PARTS = 3;

beforeAll(async () => {
  env = await startTestEnv({ MAX_PARTS: String(MAX_PARTS) });
  ({ api_key: key } = await env.createProject({ source_hosts: ['127.0.0.1'] }));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

async function submit(body: Record<string, unknown>): Promise<any> {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', page_size: 1000, ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return env.waitForTask(res.json.task_id, key, undefined, 120_000);
}

/** Rows that compress poorly, so a few thousand make several 1 MiB parts (the smallest limit allowed). */
const noisy = (i: number) => ({ id: i + 1, text: createHash('sha512').update(`x${i}`).digest('base64').repeat(4) });

it('fails a task whose max_file_rows makes more than MAX_PARTS files at its probe, fetching no page', async () => {
  const src = await source({ total: 20_000 });
  const task = await submit({ source_url: src.url, max_file_rows: 1 });
  expect(task).toMatchObject({ status: 'failed', files: [], error: { code: 'too_many_parts', message: expect.stringMatching(/20000 rows at 1 a file make 20000 files; a task may have at most 3 files/) } });
  expect(src.requests.map((r) => r.pageSize)).toEqual([1]);

  const ok = await submit({ source_url: src.url, max_file_rows: 10_000 });
  expect(ok).toMatchObject({ status: 'succeeded', error: null });
  expect(ok.files.map((f: any) => f.rows)).toEqual([10_000, 10_000, 20_000]);
}, 180_000);

it('fails a task whose byte limit makes more than MAX_PARTS files at the render, listing no file', async () => {
  // ~3.6 MB of CSV at 1 MiB a file: four parts, one over the cap of 3.
  const src = await source({ total: 10_000, row: noisy });
  for (const type of ['csv', 'jsonl']) {
    const task = await submit({ source_url: src.url, type, max_file_bytes: 1024 * 1024 });
    expect(task, type).toMatchObject({ status: 'failed', files: [], error: { code: 'too_many_parts', message: expect.stringMatching(/more than 3 files by its split limits/) } });
  }
  const ok = await submit({ source_url: src.url, max_file_bytes: 2 * 1024 * 1024 });
  expect(ok).toMatchObject({ status: 'succeeded', error: null });
  expect(ok.files.at(-1).rows).toBe(10_000);
}, 180_000);
