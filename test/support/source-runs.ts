// An export of a source server's rows as a customer runs it (submit, wait for the end), and the
// CSV it wrote read back, for the tests of how exports fetch.
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import type { TestEnv } from './env.js';
import type { SourceServer } from './source-server.js';

/** Submits a CSV export of `src` (202 expected) and waits for the task to end. */
export async function runExport(env: TestEnv, key: string, src: SourceServer, pageSize = 100, timeoutMs = 60_000) {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', page_size: pageSize } });
  expect(res.status).toBe(202);
  return env.waitForTask(res.json.task_id, key, undefined, timeoutMs);
}

/** The rows of a finished task's first file, past its byte order mark. */
export async function csvRows(task: any): Promise<Record<string, string>[]> {
  const body = Buffer.from(await (await fetch(task.files[0].url)).arrayBuffer());
  return parse(body.toString('utf8'), { columns: true, bom: true }) as Record<string, string>[];
}
