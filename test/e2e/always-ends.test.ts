// A task always ends (issue 30, docs/adr/0037-a-task-always-ends.md): a source column name holding
// a NUL ends its Parquet and CSV tasks with a storable error (or a file) and tells the callback; a
// database that refuses a task's end makes its run end anyway, its sync slot comes back, and the
// reconciler ends the task with the run's own code and sends the callback; a `running` task whose
// run is gone or was terminated is ended and frees its project's slot; an open run is left alone.
// Real API, worker, Temporal dev server, Postgres, source and callback receiver.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCleanupActivities } from '../../activities/cleanup.js';
import { tasks } from '../../db/schema.js';
import { LOST_RUN_MESSAGE, reconcileRuns } from '../../domain/tasks/reconcile.js';
import { newId, randomToken } from '../../platform/crypto.js';
import { exportWorkflow } from '../../workflows/export.js';
import { runActivity } from '../support/activity-env.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let sql: postgres.Sql;
let smtp: SmtpSink;
const receivers: Receiver[] = [];
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  smtp = await startSmtpSink();
  env = await startTestEnv({ SYNC_MAX_ROWS: '1000', SYNC_SLOTS: '1', SYNC_TIMEOUT_MS: '2000', SMTP_URL: smtp.url });
  sql = postgres(env.databaseUrl, { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await sql?.end();
  for (const r of receivers) await r.close();
  await closeSources();
  await env?.close();
  await smtp?.close();
});

const deps = () => ({ db: env.core.database.db, temporal: env.temporal, config: env.config });
const rowOf = async (id: string) => (await env.core.database.db.select().from(tasks).where(eq(tasks.id, id)))[0]!;

async function projectWithReceiver(overrides: Record<string, unknown> = {}) {
  const project = await env.createProject({ callback_hosts: ['127.0.0.1'], ...overrides });
  const receiver = await startReceiver(project.webhook_secret);
  receivers.push(receiver);
  return { project, receiver };
}

describe('a column name holding a NUL', () => {
  for (const type of ['parquet', 'csv'] as const) {
    it(`ends a ${type} export (failed with a storable error, or succeeded) and sends its callback`, async () => {
      const { project, receiver } = await projectWithReceiver();
      // The template types the column integer and row 30 holds text: Parquet fails naming the column.
      const row = (i: number) => ({ 'a\u0000b': i < 29 ? i : 'not a number', c: `v${i}` });
      const src = await source({ total: 30, row, firstExtras: { template: [{ name: 'a\u0000b', type: 'integer' }, { name: 'c' }] } });
      const res = await env.api('POST', '/v1/tasks', { token: project.api_key, body: { source_url: src.url, operator_id: 'op', type, callback: receiver.url } });
      expect(res.status).toBe(202);
      const task = await env.waitForTask(res.json.task_id, project.api_key, (t) => t.status !== 'queued' && t.status !== 'running', 60_000);
      expect(['failed', 'succeeded']).toContain(task.status);
      if (task.status === 'failed') {
        expect(task.error.code).toBe('render_failed');
        // Named storably: the render writes the NUL as the escape \u0000 (or, said raw, the
        // database's writer would replace it with U+FFFD); never the NUL itself.
        expect(task.error.message).toMatch(/column "a(\\u0000|\uFFFD)b"/);
        expect(task.error.message).not.toContain('\u0000');
      }
      const [received] = await receiver.waitFor(1, 30_000);
      expect(received!.payload).toMatchObject({ event: `task.${task.status}`, task: { task_id: task.task_id, status: task.status } });
    });
  }
});

describe('a database that refuses the end of a task', () => {
  // A real refusal from Postgres: every change of the project's running task to an end fails while it exists.
  const refuse = async (projectId: string) => {
    await sql.unsafe(`create or replace function dc_test_refuse() returns trigger language plpgsql as $$
      begin
        if old.project_id = '${projectId}' and old.status = 'running' and new.status in ('failed', 'cancelled', 'succeeded') then
          raise exception 'the test refuses the end of task %', old.id;
        end if;
        return new;
      end $$`);
    await sql.unsafe('create trigger dc_test_refuse before update on tasks for each row execute function dc_test_refuse()');
  };
  const allow = () => sql.unsafe('drop trigger if exists dc_test_refuse on tasks');

  // The run's end is refused through its bounded retries (local steps, one attempt at this project's
  // source_retry_max_attempts; the bound itself is test/workflow/unrecorded-end.test.ts's, in virtual
  // time): the run ends, and the reconciler ends the task and sends its callback and its e-mail.
  it('ends the sync run, gives its sync slot back, and the reconciler ends the task with the run’s code and tells the callback and the e-mail', async () => {
    const { project, receiver } = await projectWithReceiver({ source_retry_max_attempts: 1 });
    await env.api('PATCH', `/v1/projects/${project.project_id}`, { token: ADMIN, body: { email_domains: ['example.test'] } });
    const other = await env.createProject();
    const broken = await source({ total: 30, intercept: (r) => (r.pageSize > 1 ? { status: 404, body: 'no such page' } : undefined) });
    const good = await source({ total: 10 });
    await refuse(project.project_id);
    try {
      const res = await fetch(`${env.base}/v1/tasks/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${project.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ source_url: broken.url, operator_id: 'op', callback: receiver.url, notify_email: ['ops@example.test'] }),
      });
      // The task never ends while the database refuses: the caller is answered after SYNC_TIMEOUT_MS.
      expect(res.status).toBe(202);
      expect(res.headers.get('x-sync-fallback')).toBe('timeout');
      const taskId = ((await res.json()) as { task_id: string }).task_id;
      // Its run ends all the same: Failed, with the task's own code.
      await expect(env.temporal.workflow.getHandle(taskId).result()).rejects.toMatchObject({ cause: { type: 'source_bad_response' } });
      expect((await rowOf(taskId)).status).toBe('running');
      // The only sync slot comes back once the run has closed (not hours later).
      const sync = async () => (await fetch(`${env.base}/v1/tasks/sync`, { method: 'POST', headers: { authorization: `Bearer ${other.api_key}`, 'content-type': 'application/json' }, body: JSON.stringify({ source_url: `${good.url}?n=${randomUUID()}`, operator_id: 'op' }) })).status;
      await expect.poll(sync, { timeout: 30_000, interval: 500 }).toBe(200);

      await allow();
      const ended = await reconcileRuns(deps(), { graceMs: 0 });
      expect(ended.map((e) => e.task.id)).toContain(taskId);
      const row = await rowOf(taskId);
      expect(row).toMatchObject({ status: 'failed', errorCode: 'source_bad_response', stage: null });
      expect(row.finishedAt).not.toBeNull();
      const [received] = await receiver.waitFor(1, 30_000);
      expect(received!.payload).toMatchObject({ event: 'task.failed', task: { task_id: taskId, status: 'failed', error: { code: 'source_bad_response' } } });
      await expect.poll(() => smtp.received.filter((m) => m.envelopeTo.includes('ops@example.test')).length, { timeout: 30_000, interval: 250 }).toBe(1);
      // A second pass finds nothing more to do for it.
      expect((await reconcileRuns(deps(), { graceMs: 0 })).map((e) => e.task.id)).not.toContain(taskId);
    } finally {
      await allow();
    }
  });
});

describe('the reconciler', () => {
  /** A running task row of the project, unchanged for ten minutes, as a run that stopped writing leaves it. */
  async function runningRow(projectId: string): Promise<string> {
    const id = newId('tsk');
    const old = new Date(Date.now() - 10 * 60_000);
    await env.core.database.db.insert(tasks).values({
      id, projectId, operatorId: 'op', type: 'csv', fileName: 'lost', sourceUrl: 'http://127.0.0.1:9/x', pageSize: 10, priority: 3,
      options: {}, status: 'running', stage: 'rendering', requestHash: randomToken(16), startedAt: old, createdAt: old, updatedAt: old,
    });
    return id;
  }

  /** A run of the task on a queue no worker polls: it stays open until the test ends it. */
  async function openRun(taskId: string) {
    return env.temporal.workflow.start(exportWorkflow, {
      taskQueue: `nobody-${randomUUID()}`,
      workflowId: taskId,
      args: [{ taskId, type: 'csv', retry: { initialMs: 100, maxAttempts: 1, maxIntervalMs: 1000, backoff: 'exponential' }, run: 1, callback: false, heartbeatTimeoutMs: 10_000 }],
    });
  }

  it('ends a running task whose run is gone or was terminated, frees its slot for the next task, and leaves an open run alone', async () => {
    const project = await env.createProject({ max_running_tasks: 3 });
    const gone = await runningRow(project.project_id);
    const terminated = await runningRow(project.project_id);
    const open = await runningRow(project.project_id);
    await (await openRun(terminated)).terminate('a test ends it');
    const openHandle = await openRun(open);
    const fresh = await runningRow(project.project_id);
    await sql`update tasks set updated_at = now() where id = ${fresh}`;

    // All three slots are taken: a new task waits.
    const src = await source({ total: 20 });
    const next = await env.api('POST', '/v1/tasks', { token: project.api_key, body: { source_url: src.url, operator_id: 'op' } });
    expect(next.json.status).toBe('queued');

    try {
      const ended = await reconcileRuns(deps());
      expect(ended.map((e) => e.task.id).sort()).toEqual([gone, terminated].sort());
      expect(await rowOf(gone)).toMatchObject({ status: 'failed', errorCode: 'internal_error', errorMessage: `${LOST_RUN_MESSAGE} (Temporal has no run of it)` });
      expect(await rowOf(terminated)).toMatchObject({ status: 'failed', errorCode: 'internal_error', errorMessage: `${LOST_RUN_MESSAGE} (its run terminated)` });
      expect((await rowOf(open)).status).toBe('running');
      expect((await rowOf(fresh)).status).toBe('running');
      // The freed slots start the waiting task.
      await env.waitForTask(next.json.task_id, project.api_key, (t) => t.status === 'succeeded', 60_000);
    } finally {
      await openHandle.terminate('the test is over');
      await sql`update tasks set status = 'cancelled' where id in (${open}, ${fresh})`;
    }
  });

  it("runs in admission's sweep activity, every minute", async () => {
    const project = await env.createProject();
    const gone = await runningRow(project.project_id);
    const { core } = env;
    const activities = createCleanupActivities({ db: core.database.db, storage: core.storage, config: env.config, linkSecret: core.secrets.linkSecret, destinationKeys: core.secrets.destinationKeys, temporal: env.temporal });
    const out = await runActivity({}, () => activities.sweepAdmission({})).result;
    expect(out.ended).toBeGreaterThanOrEqual(1);
    expect(await rowOf(gone)).toMatchObject({ status: 'failed', errorCode: 'internal_error' });
  });
});
