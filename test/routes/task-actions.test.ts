// Cancel, retry, pause, resume and the callback deliveries of one task, in process (route-app.ts).
// The fake Temporal client stands for the runs: what matters here is the row, the answer, and
// that the API told Temporal (the e2e tests hold the real runs to it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDelivery } from '../../domain/callbacks/deliveries.js';
import { markRunning } from '../../domain/tasks/status.js';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { type Project, type RouteApp, startWithTwoProjects, taskBody } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

let rt: RouteApp;
let a: Project;
let b: Project;
beforeAll(async () => ({ rt, a, b } = await startWithTwoProjects()));
afterAll(() => rt?.close());

const act = (task: { task_id: string }, action: string, key = a.api_key) => rt.call('POST', `/v1/tasks/${task.task_id}/${action}`, { token: key });

describe('cancel and retry', () => {
  it('cancels a live task (202, cancelled, its run cancelled), then refuses a second cancel (409)', async () => {
    const task = await rt.submit(a.api_key);
    await rt.drained();
    const res = await act(task, 'cancel');
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ task_id: task.task_id, status: 'cancelled' });
    expect(rt.temporal.of('cancel')).toContainEqual({ kind: 'cancel', workflowId: task.task_id });
    expectError(await act(task, 'cancel'), 409, 'task_finished');
  });

  it('retries a cancelled task as a new run under the same id, and refuses to retry a live one', async () => {
    const task = await rt.submit(a.api_key, taskBody({ operator_id: 'retry' }));
    expectError(await act(task, 'retry'), 409, 'task_not_retryable');
    await act(task, 'cancel');
    const starts = rt.temporal.of('start').length;
    const res = await act(task, 'retry');
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ task_id: task.task_id, status: 'queued' });
    await rt.drained();
    expect(rt.temporal.of('start').slice(starts)).toEqual([expect.objectContaining({ workflowId: task.task_id, workflowType: 'exportWorkflow' })]);
  });
});

describe('pause and resume', () => {
  it('pauses a queued task at once and resumes it to queued; a task not paused cannot be resumed', async () => {
    const task = await rt.submit(a.api_key, taskBody({ operator_id: 'pause-queued' }));
    await rt.drained();
    expectError(await act(task, 'resume'), 409, 'task_not_paused');
    const paused = await act(task, 'pause');
    expect(paused.status).toBe(202);
    expect(paused.json.status).toBe('paused');
    // Its run, started already, sees the paused row and closes: a resume waits for that.
    rt.temporal.closeRun(task.task_id);
    const resumed = await act(task, 'resume');
    expect(resumed.status).toBe(202);
    expect(resumed.json.status).toBe('queued');
  });

  it('asks the run of a running task to pause (an update), and refuses to pause a finished task', async () => {
    const task = await rt.submit(a.api_key, taskBody({ operator_id: 'pause-running' }));
    await rt.drained();
    // The run's first step, played here: queued → running.
    expect(await markRunning(rt.database.db, task.task_id)).toBe('started');
    expect((await act(task, 'pause')).status).toBe(202);
    expect(rt.temporal.of('update')).toContainEqual({ kind: 'update', workflowId: task.task_id, name: 'pause' });
    await act(task, 'cancel');
    expectError(await act(task, 'pause'), 409, 'task_not_pausable');
  });
});

describe('GET /v1/tasks/{task_id}/deliveries', () => {
  it("lists the task's callback attempts, oldest first", async () => {
    const task = await rt.submit(a.api_key, taskBody({ operator_id: 'callbacks' }));
    expect((await rt.call('GET', `/v1/tasks/${task.task_id}/deliveries`, { token: a.api_key })).json).toEqual({ items: [] });
    await recordDelivery(rt.database.db, { taskId: task.task_id, event: 'task.succeeded', webhookId: 'msg_1', attempt: 1, statusCode: 500, latencyMs: 12 });
    await recordDelivery(rt.database.db, { taskId: task.task_id, event: 'task.succeeded', webhookId: 'msg_1', attempt: 2, statusCode: 200, latencyMs: 9 });
    const res = await rt.call('GET', `/v1/tasks/${task.task_id}/deliveries`, { token: a.api_key });
    expect(res.status).toBe(200);
    expect(res.json.items.map((d: { attempt: number; status_code: number }) => [d.attempt, d.status_code])).toEqual([[1, 500], [2, 200]]);
  });
});

describe('every action', () => {
  const ACTIONS = ['cancel', 'retry', 'pause', 'resume'];

  it("is a 404 on another project's task, which it leaves as it was", async () => {
    const task = await rt.submit(a.api_key, taskBody({ operator_id: 'not-b' }));
    for (const action of ACTIONS) expectError(await act(task, action, b.api_key), 404, 'not_found');
    expectError(await rt.call('GET', `/v1/tasks/${task.task_id}/deliveries`, { token: b.api_key }), 404, 'not_found');
    expect((await rt.call('GET', `/v1/tasks/${task.task_id}`, { token: a.api_key })).json.status).toBe('queued');
  });

  it('is a 404 on a task that does not exist, and a 422 on a task id with a NUL', async () => {
    for (const action of ACTIONS) {
      expectError(await act({ task_id: 'tsk_nosuchtask' }, action), 404, 'not_found');
      expectError(await act({ task_id: 'tsk_%00' }, action), 422, 'validation_failed');
    }
    expectError(await rt.call('GET', '/v1/tasks/tsk_%00/deliveries', { token: a.api_key }), 422, 'validation_failed');
  });

  it('needs a project key', async () => {
    for (const action of ACTIONS) await expectKeyRefusals(rt, 'POST', `/v1/tasks/tsk_any/${action}`, { project: a.api_key });
    await expectKeyRefusals(rt, 'GET', '/v1/tasks/tsk_any/deliveries', { project: a.api_key });
  });
});

itCalledItsRoutes('task-actions', () => rt);
