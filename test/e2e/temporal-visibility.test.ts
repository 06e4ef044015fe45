// Operators in the Temporal UI (docs/operations.md#finding-exports-in-the-temporal-ui): every export run carries DcProjectId, DcOperatorId,
// DcExportType, DcStatus (kept current) and DcRows, a one-line summary, static details and
// current details with the stage and pages; a failed export's run ends Failed with the task's error
// code as its failure type. Read back through the Temporal client, as the UI does.
import { WorkflowFailedError } from '@temporalio/client';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DC_EXPORT_TYPE, DC_OPERATOR_ID, DC_PROJECT_ID, DC_ROWS, DC_STATUS } from '../../model/search-attributes.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { type SourceServer, startSource } from '../support/source-server.js';
import { markdownText } from '../../platform/markdown.js';

let env: TestEnv;
let src: SourceServer;
let slow: SourceServer;
let bad: SourceServer;
let project: { project_id: string; api_key: string };

beforeAll(async () => {
  env = await startTestEnv();
  src = await startSource({ total: 1234 });
  // 400 pages of 100 rows at 40 ms each, one lane in chunks of 200 pages: long enough to watch the run move.
  slow = await startSource({ total: 40_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 40) });
  // Its pages after the probe answer 404: a permanent source_bad_response.
  bad = await startSource({ total: 300, intercept: (r) => (r.pageSize > 1 ? { status: 404, body: '{}' } : undefined) });
  project = await env.createProject({ name: 'merchant-platform', source_hosts: [src.host, slow.host, bad.host], max_running_tasks: 4 });
});

afterAll(async () => {
  await Promise.all([src?.close(), slow?.close(), bad?.close()]);
  await env?.close();
});

const submit = async (body: Record<string, unknown>) => {
  const res = await env.api('POST', '/v1/tasks', { token: project.api_key, body });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json.task_id as string;
};

/** The ids a visibility query finds (the UI's search box sends the same query). */
async function find(query: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const w of env.temporal.workflow.list({ query })) ids.push(w.workflowId);
  return ids.sort();
}

it('sets the search attributes, summary and details at start and keeps DcStatus and DcRows current', async () => {
  const id = await submit({ source_url: src.url, operator_id: 'u42', file_name: 'orders-2026-11', type: 'excel' });
  await env.waitForTask(id, project.api_key);
  const p = `DcProjectId = "${project.project_id}"`;
  await expect.poll(() => find(`${p} AND DcStatus = "succeeded" AND DcOperatorId = "u42"`), { timeout: 10_000 }).toEqual([id]);
  expect(await find(`${p} AND DcExportType = "excel" AND DcRows = 1234`)).toEqual([id]);
  expect(await find(`${p} AND DcStatus = "running"`)).toEqual([]);

  const d = await env.temporal.workflow.getHandle(id).describe();
  const sa = d.typedSearchAttributes;
  expect([sa.get(DC_PROJECT_ID), sa.get(DC_OPERATOR_ID), sa.get(DC_EXPORT_TYPE), sa.get(DC_STATUS), sa.get(DC_ROWS)]).toEqual([project.project_id, 'u42', 'excel', 'succeeded', 1234]);
  expect(await d.staticSummary()).toBe('merchant-platform · u42 · excel · orders-2026-11');
  const details = await d.staticDetails();
  expect(details).toContain(`**Source host:** ${markdownText(src.host)}`);
  expect(details).toContain('**Page size:** 500');
  expect(details).toContain(`/v1/tasks/${id}`);
  expect(details).not.toContain('page=');
});

it('shows a running export as running with its pages in the current details, then paused', async () => {
  const id = await submit({ source_url: slow.url, operator_id: 'u7', page_size: 100 });
  const p = `DcProjectId = "${project.project_id}"`;
  await expect.poll(() => find(`${p} AND DcStatus = "running"`), { timeout: 10_000 }).toEqual([id]);
  // DcRows follows once the probe has answered.
  await expect.poll(() => find(`${p} AND DcRows = 40000 AND DcOperatorId = "u7"`), { timeout: 10_000 }).toEqual([id]);
  const handle = env.temporal.workflow.getHandle(id);
  // The UI reads current details through the SDK's metadata query; they move with each chunk of 200 pages (one lane up to 400).
  const details = async () => (await handle.query(workflowMetadataQuery)).currentDetails ?? '';
  expect(await details()).toMatch(/^\*\*running\*\* · fetching · 0 of 400 pages \(0%\) · 40000 rows$/);
  await expect.poll(details, { timeout: 20_000 }).toBe('**running** · fetching · 200 of 400 pages (50%) · 40000 rows');

  const paused = await env.api('POST', `/v1/tasks/${id}/pause`, { token: project.api_key });
  expect(paused.status).toBe(202);
  await expect.poll(() => find(`${p} AND DcStatus = "paused"`), { timeout: 10_000 }).toEqual([id]);
  expect((await handle.query(workflowMetadataQuery)).currentDetails).toBe('**paused** · 40000 rows');
  // A paused task's run has ended (a resume starts a new one): Temporal shows it Completed.
  await expect.poll(async () => (await handle.describe()).status.name, { timeout: 10_000 }).toBe('COMPLETED');
  const cancelled = await env.api('POST', `/v1/tasks/${id}/cancel`, { token: project.api_key });
  expect(cancelled.status).toBe(202);
});

it('shows a cancelled run as cancelled', async () => {
  const id = await submit({ source_url: `${slow.url}?c=1`, operator_id: 'u8', page_size: 100 });
  const p = `DcProjectId = "${project.project_id}" AND DcOperatorId = "u8"`;
  await expect.poll(() => find(`${p} AND DcStatus = "running"`), { timeout: 10_000 }).toEqual([id]);
  expect((await env.api('POST', `/v1/tasks/${id}/cancel`, { token: project.api_key })).status).toBe(202);
  await expect.poll(() => find(`${p} AND DcStatus = "cancelled"`), { timeout: 15_000 }).toEqual([id]);
});

it('ends a failed export as Failed with its error code, found by ExecutionStatus = "Failed", the sync export too', async () => {
  const id = await submit({ source_url: bad.url, operator_id: 'u9', page_size: 100 });
  expect(await env.waitForTask(id, project.api_key)).toMatchObject({ status: 'failed', error: { code: 'source_bad_response' } });
  // A sync export of the same source still answers with the task's code (from the task row).
  const res = await fetch(`${env.base}/v1/tasks/sync`, {
    method: 'POST',
    headers: { authorization: `Bearer ${project.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source_url: `${bad.url}?sync=1`, operator_id: 'u9', page_size: 100 }),
  });
  expect(res.status).toBe(502);
  const body: any = await res.json();
  expect(body.error.code).toBe('source_bad_response');
  const syncId = /task (tsk_\w+)/.exec(body.error.message)![1]!;

  const p = `DcProjectId = "${project.project_id}" AND DcOperatorId = "u9"`;
  await expect.poll(() => find(`${p} AND ExecutionStatus = "Failed"`), { timeout: 10_000 }).toEqual([id, syncId].sort());
  expect(await find(`${p} AND DcStatus = "failed"`)).toEqual([id, syncId].sort());
  for (const wid of [id, syncId]) {
    const handle = env.temporal.workflow.getHandle(wid);
    expect((await handle.describe()).status.name).toBe('FAILED');
    const err = await handle.result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toMatchObject({ type: 'source_bad_response', nonRetryable: true });
  }
});
