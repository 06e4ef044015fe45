// Records Temporal histories of today's workflow code as replay fixtures (test/fixtures/histories)
// for test/replay: `npm run record:histories` after a workflow change, then commit the new files
// beside the old ones (docs/adr/0040-workflow-versioning-from-1.0.md). Every scenario is a real
// run through the API, a worker and the Temporal dev server; every workflow type has one.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tasks } from '../../db/schema.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { toJSON } from '../support/histories.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp.js';
import { changesTwice, pageRequests, probes, type SourceServer, sourcePool } from '../support/source-server.js';

// New recordings sit beside the old ones (the replay test runs them all): RECORD_PREFIX names them
// (the 1.0 baseline's are `1.0-`).
const PREFIX = process.env.RECORD_PREFIX ?? `${new Date().toISOString().slice(0, 10)}-`;
const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'histories');

let env: TestEnv;
let smtp: SmtpSink;
let project: { project_id: string; api_key: string; webhook_secret: string };
const { source, closeSources } = sourcePool();
const receivers: Receiver[] = [];

beforeAll(async () => {
  smtp = await startSmtpSink();
  env = await startTestEnv({ SMTP_URL: smtp.url, EMAIL_FROM: 'Exports <exports@example.test>' });
  project = await env.createProject({ source_hosts: ['127.0.0.1'], callback_hosts: ['127.0.0.1'], max_running_tasks: 10 });
  const mails = await env.api('PATCH', `/v1/projects/${project.project_id}`, { token: ADMIN, body: { email_domains: ['example.test'] } });
  expect(mails.status).toBe(200);
  mkdirSync(FIXTURES, { recursive: true });
});

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await closeSources();
  await env?.close();
  await smtp?.close();
});

async function submit(body: Record<string, unknown>, key = project.api_key): Promise<string> {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-rec', ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json.task_id as string;
}

const workflowStatus = async (workflowId: string) => (await env.temporal.workflow.getHandle(workflowId).describe()).status.name;

/** Waits until the workflow (latest run) is closed, then writes its history to <name>.json. */
async function record(name: string, workflowId: string, runId?: string): Promise<any> {
  await expect.poll(() => workflowStatus(workflowId), { timeout: 30_000, interval: 100 }).not.toBe('RUNNING');
  const history = await env.temporal.workflow.getHandle(workflowId, runId).fetchHistory();
  const json = toJSON(history);
  writeFileSync(join(FIXTURES, `${PREFIX}${name}.json`), json + '\n');
  return JSON.parse(json);
}

const lastEventType = (h: any): string => h.events[h.events.length - 1].eventType;
const typeOf = (h: any): string => h.events[0].workflowExecutionStartedEventAttributes.workflowType.name;
const failureType = (h: any): string => h.events[h.events.length - 1].workflowExecutionFailedEventAttributes.failure.applicationFailureInfo.type;

describe('record histories', () => {
  let csvTaskId = '';

  it('csv-succeeded', async () => {
    const src = await source({ total: 1200 });
    csvTaskId = await submit({ source_url: src.url, page_size: 500 });
    expect(await env.waitForTask(csvTaskId, project.api_key)).toMatchObject({ status: 'succeeded', progress: { total_rows: 1200 } });
    const h = await record('csv-succeeded', csvTaskId);
    expect(typeOf(h)).toBe('exportWorkflow');
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  });

  // Sync exports (workflows/sync-export.ts): local activities, recorded as markers.
  const syncExport = async (body: Record<string, unknown>) => {
    const res = await fetch(`${env.base}/v1/tasks/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operator_id: 'op-rec', ...body }),
    });
    await res.arrayBuffer();
    return { status: res.status, taskId: res.headers.get('x-task-id') ?? res.headers.get('location')!.split('/').pop()! };
  };

  it('sync-succeeded', async () => {
    const ok = await syncExport({ source_url: (await source({ total: 250 })).url, page_size: 100 });
    expect(ok.status).toBe(200);
    const h = await record('sync-succeeded', ok.taskId);
    expect(typeOf(h)).toBe('syncExportWorkflow');
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  });

  it('sync-callback', async () => {
    // A sync run's callback workflow starts on the deployment's queue, not the sync queue (ADR 0054).
    const hook = await startReceiver(project.webhook_secret, () => ({ status: 204 }));
    receivers.push(hook);
    const ok = await syncExport({ source_url: (await source({ total: 150 })).url, page_size: 100, callback: hook.url });
    expect(ok.status).toBe(200);
    await hook.waitFor(1);
    const h = await record('sync-callback', ok.taskId);
    const started = h.events.find((e: any) => e.eventType === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED');
    expect(started.startChildWorkflowExecutionInitiatedEventAttributes.taskQueue.name).toBe(env.config.TEMPORAL_TASK_QUEUE);
    expect(h.events[0].workflowExecutionStartedEventAttributes.taskQueue.name).toBe(`${env.config.TEMPORAL_TASK_QUEUE}-sync`);
  });

  it('sync-failed', async () => {
    const bad = await source({ total: 250, intercept: (r) => (r.pageSize > 1 ? { status: 404, body: '{}' } : undefined) });
    const res = await fetch(`${env.base}/v1/tasks/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operator_id: 'op-rec', source_url: bad.url, page_size: 100 }),
    });
    expect(res.status).toBe(502);
    const taskId = /task (tsk_\w+)/.exec(((await res.json()) as any).error.message)![1]!;
    const f = await record('sync-failed', taskId);
    // The run ends Failed, the task's error code its type.
    expect(lastEventType(f)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED');
    expect(failureType(f)).toBe('source_bad_response');
  });

  it('sync-requeued', async () => {
    // Over the sync limit (10,000): back in the queue, a slot free, continued as the export.
    const res = await syncExport({ source_url: (await source({ total: 10_100 })).url, page_size: 1000 });
    expect(res.status).toBe(202);
    expect(await env.waitForTask(res.taskId, project.api_key)).toMatchObject({ status: 'succeeded' });
    const latest = await record('sync-requeued-export', res.taskId);
    expect(typeOf(latest)).toBe('exportWorkflow');
    const first = latest.events[0].workflowExecutionStartedEventAttributes.continuedExecutionRunId;
    const h = await record('sync-requeued', res.taskId, first);
    expect(typeOf(h)).toBe('syncExportWorkflow');
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW');
  });

  it('excel-lanes-succeeded', async () => {
    // 1,300 pages → 5 lanes of 260 pages → two fetchPages chunks (200 + 60) per lane.
    const src = await source({ total: 130_000 });
    const taskId = await submit({ source_url: src.url, page_size: 100, type: 'excel' });
    expect(await env.waitForTask(taskId, project.api_key, undefined, 170_000)).toMatchObject({ status: 'succeeded', type: 'excel' });
    const [row] = await env.core.database.db.select({ lanes: tasks.lanes }).from(tasks).where(eq(tasks.id, taskId));
    expect(Object.keys(row!.lanes)).toHaveLength(5);
    const h = await record('excel-lanes-succeeded', taskId);
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    const fetches = h.events.filter((e: any) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'fetchPages');
    expect(fetches).toHaveLength(10);
  }, 180_000);

  it('callback-succeeded and callback-delivery', async () => {
    const hook = await startReceiver(project.webhook_secret, () => ({ status: 204 }));
    receivers.push(hook);
    const src = await source({ total: 150 });
    const taskId = await submit({ source_url: src.url, page_size: 100, callback: hook.url });
    expect((await env.waitForTask(taskId, project.api_key)).status).toBe('succeeded');
    const [got] = await hook.waitFor(1);
    expect(got!.verifyError).toBeUndefined();
    expect(got!.payload!.event).toBe('task.succeeded');
    await expect.poll(() => workflowStatus(`${taskId}.callback.1`), { timeout: 20_000 }).toBe('COMPLETED');
    const parent = await record('callback-succeeded', taskId);
    expect(lastEventType(parent)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    expect(parent.events.some((e: any) => e.eventType === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED')).toBe(true);
    const child = await record('callback-delivery', `${taskId}.callback.1`);
    expect(typeOf(child)).toBe('callbackWorkflow');
    expect(lastEventType(child)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  });

  it('failed-bad-response', async () => {
    // With a callback: the task.failed delivery starts before the run ends Failed.
    const hook = await startReceiver(project.webhook_secret, () => ({ status: 204 }));
    receivers.push(hook);
    const src = await source({ total: 500, intercept: (r) => (r.pageSize !== 1 && r.page === 2 ? { status: 404, body: '{}' } : undefined) });
    const taskId = await submit({ source_url: src.url, page_size: 100, callback: hook.url });
    expect(await env.waitForTask(taskId, project.api_key)).toMatchObject({ status: 'failed', error: { code: 'source_bad_response' } });
    expect((await hook.waitFor(1))[0]!.payload!.event).toBe('task.failed');
    const h = await record('failed-bad-response', taskId);
    expect(h.events.some((e: any) => e.eventType === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED')).toBe(true);
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED');
    expect(failureType(h)).toBe('source_bad_response');
  });

  it('source-changed-restart', async () => {
    const src = await source({
      total: 3000,
      intercept: (r) => {
        if (r.pageSize !== 1 && r.page === 10 && src.options.total === 3000) src.options.total = 3100;
        return undefined;
      },
    });
    const taskId = await submit({ source_url: src.url, page_size: 100 });
    expect(await env.waitForTask(taskId, project.api_key)).toMatchObject({ status: 'succeeded', progress: { total_rows: 3100 } });
    expect(probes(src)).toHaveLength(2);
    const h = await record('source-changed-restart', taskId);
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  });

  it('source-changed-twice', async () => {
    const src: SourceServer = await source({ total: 3000, intercept: changesTwice(() => src) });
    const taskId = await submit({ source_url: src.url, page_size: 100 });
    expect(await env.waitForTask(taskId, project.api_key)).toMatchObject({ status: 'failed', error: { code: 'source_changed' } });
    expect(probes(src)).toHaveLength(2);
    const h = await record('source-changed-twice', taskId);
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_FAILED');
  });

  it('cancelled', async () => {
    // Pages 0–9 come at once; page 10 hangs until the fetch is cancelled.
    const src = await source({ total: 3000, delayMs: (r) => (r.page === 10 && r.pageSize === 100 ? 60_000 : 0) });
    const taskId = await submit({ source_url: src.url, page_size: 100 });
    await expect.poll(() => pageRequests(src, 10).length > 0, { timeout: 15_000 }).toBe(true);
    const res = await env.api('POST', `/v1/tasks/${taskId}/cancel`, { token: project.api_key });
    expect(res.status).toBe(202);
    await expect.poll(() => workflowStatus(taskId), { timeout: 15_000 }).toBe('CANCELLED');
    const h = await record('cancelled', taskId);
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED');
  });

  it('slot-wait', async () => {
    const one = await env.createProject({ name: 'one-slot', source_hosts: ['127.0.0.1'], max_running_tasks: 1 });
    const src = await source({ total: 500, delayMs: (r) => (r.pageSize === 1 ? 0 : 800) });
    const first = await submit({ source_url: src.url, page_size: 100 }, one.api_key);
    await env.waitForTask(first, one.api_key, (t) => t.status === 'running');
    const second = await submit({ source_url: `${src.url}?second=1`, page_size: 100 }, one.api_key);
    expect((await env.waitForTask(first, one.api_key)).status).toBe('succeeded');
    expect((await env.waitForTask(second, one.api_key)).status).toBe('succeeded');
    const h = await record('slot-wait', second);
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    const startTask = h.events.find((e: any) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'startTask');
    if (startTask) {
      // The run began before its slot was free: startTask waited, retried by the server.
      const started = h.events.find((e: any) => e.activityTaskStartedEventAttributes?.scheduledEventId === startTask.eventId);
      expect(started.activityTaskStartedEventAttributes.attempt).toBeGreaterThan(1);
      expect(started.activityTaskStartedEventAttributes.lastFailure.applicationFailureInfo.type).toBe('waiting_for_slot');
    } else {
      // Admitted when the slot freed: startTask was a local activity, a marker.
      expect(h.events.some((e: any) => e.eventType === 'EVENT_TYPE_MARKER_RECORDED')).toBe(true);
    }
  }, 60_000);

  it('transient-resume', async () => {
    // Page 0 is stored, then page 1 answers 500 once: fetchPages returns nextPage, the workflow
    // sleeps and resumes from page 1 with the resume proxy.
    const src = await source({ total: 300, intercept: (r) => (r.pageSize !== 1 && r.page === 1 && pageRequests(src, 1).length === 1 ? { status: 500, body: 'oops' } : undefined) });
    const taskId = await submit({ source_url: src.url, page_size: 100 });
    expect((await env.waitForTask(taskId, project.api_key)).status).toBe('succeeded');
    expect(pageRequests(src, 0)).toHaveLength(1);
    expect(pageRequests(src, 1)).toHaveLength(2);
    const h = await record('transient-resume', taskId);
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    expect(h.events.some((e: any) => e.eventType === 'EVENT_TYPE_TIMER_STARTED')).toBe(true);
    expect(h.events.filter((e: any) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'fetchPages')).toHaveLength(2);
  });

  it('retried-run', async () => {
    let healthy = false;
    const src = await source({ total: 450, intercept: (r) => (!healthy && r.pageSize !== 1 && r.page === 2 ? { status: 404, body: '{}' } : undefined) });
    const taskId = await submit({ source_url: src.url, page_size: 100 });
    expect(await env.waitForTask(taskId, project.api_key)).toMatchObject({ status: 'failed', runs: 1 });
    await expect.poll(() => workflowStatus(taskId), { timeout: 15_000 }).toBe('FAILED');
    const firstRun = (await env.temporal.workflow.getHandle(taskId).describe()).runId;
    healthy = true;
    const res = await env.api('POST', `/v1/tasks/${taskId}/retry`, { token: project.api_key });
    expect(res.status).toBe(202);
    expect(await env.waitForTask(taskId, project.api_key)).toMatchObject({ status: 'succeeded', runs: 2 });
    await expect.poll(() => workflowStatus(taskId), { timeout: 15_000 }).toBe('COMPLETED');
    const { runId } = await env.temporal.workflow.getHandle(taskId).describe();
    expect(runId).not.toBe(firstRun);
    const h = await record('retried-run', taskId, runId);
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  });

  it('excel-sheets-succeeded', async () => {
    // Six sheets of three pages: six lanes, at most MAX_LANES (5) fetching at once.
    const srcs = await Promise.all(Array.from({ length: 6 }, () => source({ total: 250 })));
    const taskId = await submit({ type: 'excel', page_size: 100, sheets: srcs.map((s, i) => ({ source_url: s.url, name: `S${i + 1}` })) });
    expect(await env.waitForTask(taskId, project.api_key)).toMatchObject({ status: 'succeeded', progress: { total_rows: 1500 } });
    const h = await record('excel-sheets-succeeded', taskId);
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    const fetches = h.events.filter((e: any) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'fetchPages');
    expect(fetches).toHaveLength(6);
  });

  it('excel-sheets-resumed', async () => {
    // Paused mid-fetch, resumed: the new run fetches each sheet's missing pages, sheets named.
    const slow = { delayMs: (r: { pageSize: number }) => (r.pageSize === 1 ? 0 : 25) };
    const [a, b] = await Promise.all([source({ total: 6000, ...slow }), source({ total: 4000, ...slow })]);
    const taskId = await submit({ type: 'excel', page_size: 100, sheets: [{ source_url: a.url }, { source_url: b.url }] });
    await env.waitForTask(taskId, project.api_key, (t) => t.progress.percent >= 30);
    expect((await env.api('POST', `/v1/tasks/${taskId}/pause`, { token: project.api_key })).json.status).toBe('paused');
    await expect.poll(() => workflowStatus(taskId), { timeout: 15_000 }).toBe('COMPLETED');
    expect((await env.api('POST', `/v1/tasks/${taskId}/resume`, { token: project.api_key })).status).toBe(202);
    expect(await env.waitForTask(taskId, project.api_key, undefined, 60_000)).toMatchObject({ status: 'succeeded', progress: { fetched_rows: 10_000 } });
    await expect.poll(() => workflowStatus(taskId), { timeout: 15_000 }).toBe('COMPLETED');
    const { runId } = await env.temporal.workflow.getHandle(taskId).describe();
    const h = await record('excel-sheets-resumed', taskId, runId);
    expect(h.events.some((e: any) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'stagedGaps')).toBe(true);
  }, 90_000);

  it('scheduled-run', async () => {
    const src = await source({ total: 20 });
    const created = await env.api('POST', '/v1/schedules', { token: project.api_key, body: { operator_id: 'op-rec', cron: '0 2 * * *', timezone: 'Asia/Shanghai', source_url: `${src.url}?day={{date}}&to={{interval_end}}`, file_name: 'daily-{{date}}' } });
    expect(created.status).toBe(201);
    const id = created.json.schedule_id as string;
    expect((await env.api('POST', `/v1/schedules/${id}/trigger`, { token: project.api_key })).status).toBe(202);
    await expect.poll(async () => (await env.temporal.schedule.getHandle(id).describe()).info.recentActions.length, { timeout: 15_000 }).toBe(1);
    const workflowId = (await env.temporal.schedule.getHandle(id).describe()).info.recentActions[0]!.action.workflow.workflowId;
    const h = await record('scheduled-run', workflowId);
    expect(typeOf(h)).toBe('scheduledRunWorkflow');
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
    await env.api('DELETE', `/v1/schedules/${id}`, { token: project.api_key });
  });

  it('cleanup', async () => {
    // Let the csv-succeeded task's file expire so the run has something to remove.
    await env.core.database.db.update(tasks).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(tasks.id, csvTaskId));
    const workflowId = `cleanup-record-${csvTaskId}`;
    const out = await env.temporal.workflow.execute('cleanupWorkflow', { taskQueue: env.config.TEMPORAL_TASK_QUEUE, workflowId, args: [{}] });
    expect(out).toEqual({ expired: 1 });
    const h = await record('cleanup', workflowId);
    expect(typeOf(h)).toBe('cleanupWorkflow');
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  });

  it('email-succeeded and email-delivery', async () => {
    const src = await source({ total: 150 });
    const taskId = await submit({ source_url: src.url, page_size: 100, notify_email: ['ops@example.test', 'lead@example.test'] });
    expect((await env.waitForTask(taskId, project.api_key)).status).toBe('succeeded');
    await smtp.waitFor(2);
    await expect.poll(() => workflowStatus(`${taskId}.email.1`), { timeout: 20_000 }).toBe('COMPLETED');
    const parent = await record('email-succeeded', taskId);
    expect(parent.events.some((e: any) => e.eventType === 'EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED')).toBe(true);
    const child = await record('email-delivery', `${taskId}.email.1`);
    expect(typeOf(child)).toBe('emailWorkflow');
    expect(child.events.filter((e: any) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendTaskEmail')).toHaveLength(2);
  });

  it('admission-sweep', async () => {
    const workflowId = `admission-sweep-record-${Date.now()}`;
    const out = await env.temporal.workflow.execute('admissionSweepWorkflow', { taskQueue: env.config.TEMPORAL_TASK_QUEUE, workflowId, args: [{}] });
    expect(out).toEqual({ started: expect.any(Number), ended: expect.any(Number) });
    const h = await record('admission-sweep', workflowId);
    expect(typeOf(h)).toBe('admissionSweepWorkflow');
    expect(lastEventType(h)).toBe('EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED');
  });
});
