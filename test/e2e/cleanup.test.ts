import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tasks } from '../../db/schema.js';
import { CLEANUP_SCHEDULE_ID, ensureCleanupSchedule } from '../../app/schedules.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { type SourceServer, startSource } from '../support/source-server.js';

let env: TestEnv;
let src: SourceServer;

beforeAll(async () => {
  env = await startTestEnv();
  src = await startSource({ total: 10 });
});

afterAll(async () => {
  await src?.close();
  await env?.close();
});

it('expires files past their retention: store emptied, status expired, links answer 410', async () => {
  const p = await env.createProject({ source_hosts: [src.host], retention_hours: 1 });
  const res = await env.api('POST', '/v1/tasks', { token: p.api_key, body: { source_url: src.url, operator_id: 'op' } });
  const done = await env.waitForTask(res.json.task_id, p.api_key);
  expect(Date.parse(done.expires_at) - Date.parse(done.finished_at)).toBeCloseTo(3600_000, -3);
  const keep = await env.api('POST', '/v1/tasks', { token: p.api_key, body: { source_url: `${src.url}?keep=1`, operator_id: 'op' } });
  await env.waitForTask(keep.json.task_id, p.api_key);

  await env.core.database.db.update(tasks).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(tasks.id, done.task_id));
  const out = await env.temporal.workflow.execute('cleanupWorkflow', { taskQueue: env.config.TEMPORAL_TASK_QUEUE, workflowId: `cleanup-${done.task_id}`, args: [{}] });
  expect(out).toEqual({ expired: 1 });

  const after = await env.api('GET', `/v1/tasks/${done.task_id}`, { token: p.api_key });
  expect(after.json).toMatchObject({ status: 'expired', files: [] });
  expect(await env.core.storage.list(`files/${done.task_id}`)).toEqual([]);
  expect((await fetch(done.files[0].url)).status).toBe(410);
  expect((await env.api('GET', `/v1/tasks/${done.task_id}/download`, { token: p.api_key })).status).toBe(410);
  expect((await env.api('GET', `/v1/tasks/${keep.json.task_id}`, { token: p.api_key })).json.status).toBe('succeeded');
});

it('creates the cleanup schedule once, however many workers start', async () => {
  await ensureCleanupSchedule(env.temporal, env.config);
  await ensureCleanupSchedule(env.temporal, env.config);
  const handle = env.temporal.schedule.getHandle(CLEANUP_SCHEDULE_ID);
  const desc = await handle.describe();
  expect(desc.action).toMatchObject({ type: 'startWorkflow', workflowType: 'cleanupWorkflow' });
  await handle.delete();
});
