// POST /v1/tasks/sync in process (route-app.ts). The fake Temporal client's onStart plays the sync
// run's part (the file stored and the row finished, or the probe over the limit); the handler's own
// work is what is tested: waiting on the row, answering the file, the error or the 202 fallback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishTask, recordProbe, markRunning } from '../../domain/tasks/status.js';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { type Project, type RouteApp, startWithTwoProjects, taskBody } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

const CSV = 'id\n1\n2\n3\n';

let rt: RouteApp;
let a: Project;
let b: Project;
beforeAll(async () => {
  // The timeout is the fallback test's wait, and the bound on every other test's run: short, but
  // long enough for a loaded machine to finish a played run inside it.
  ({ rt, a, b } = await startWithTwoProjects({ SYNC_TIMEOUT_MS: '2500', SYNC_SLOTS: '1', SYNC_MAX_ROWS: '10' }));
});
afterAll(() => rt?.close());

const sync = (key: string, body: Record<string, unknown> = taskBody(), headers: Record<string, string> = {}) =>
  rt.call('POST', '/v1/tasks/sync', { token: key, body, headers });

/** What the sync run does this time, once started (the fake answers the start first). */
function runs(play: (taskId: string) => Promise<unknown>): void {
  rt.temporal.onStart = async (start) => {
    if (start.workflowType === 'syncExportWorkflow') await play(start.workflowId);
  };
}

describe('POST /v1/tasks/sync', () => {
  it('answers the file itself once the run has made it, naming the task', async () => {
    runs((id) => rt.succeed(id, CSV));
    const res = await sync(a.api_key, taskBody({ operator_id: 'sync-ok' }));
    expect(res.status).toBe(200);
    expect(res.text).toBe(CSV);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const taskId = res.headers.get('x-task-id')!;
    expect(rt.temporal.of('start')).toContainEqual(expect.objectContaining({ workflowType: 'syncExportWorkflow', workflowId: taskId }));
    expect(res.headers.get('server-timing')).toMatch(/submit;dur=.*start;dur=.*export;dur=/);
    expect((await rt.call('GET', `/v1/tasks/${taskId}`, { token: a.api_key })).json.status).toBe('succeeded');
  });

  it("answers a failed export with the task's own error code (502 for the source's fault)", async () => {
    runs((id) => finishTask(rt.database.db, id, { status: 'failed', errorCode: 'source_unreachable', errorMessage: 'the source did not answer' }));
    const res = await sync(a.api_key, taskBody({ operator_id: 'sync-failed' }));
    expectError(res, 502, 'source_unreachable');
    expect(res.headers.get('x-task-id')).toMatch(/^tsk_/);
  });

  it("answers a fault of ours with 500 internal_error, never the failure's raw text", async () => {
    const raw = "TypeError: Cannot read properties of undefined (reading 'x')\n    at render (/srv/dc/domain/staging/render-csv.ts:42:7)";
    runs((id) => finishTask(rt.database.db, id, { status: 'failed', errorCode: 'internal_error', errorMessage: raw }));
    const res = await sync(a.api_key, taskBody({ operator_id: 'sync-ours' }));
    expectError(res, 500, 'internal_error');
    expect(res.json.error.message).toContain(res.headers.get('x-task-id'));
    expect(res.json.error.message).not.toMatch(/TypeError|render-csv|\/srv/);
  });

  it("answers a value that does not fit its column with 422 render_failed and the task's sentence", async () => {
    const sentence = 'row 3, column "amount": "n/a" is not an integer, the column\'s Parquet type';
    runs((id) => finishTask(rt.database.db, id, { status: 'failed', errorCode: 'render_failed', errorMessage: sentence }));
    const res = await sync(a.api_key, taskBody({ operator_id: 'sync-data' }));
    expectError(res, 422, 'render_failed');
    expect(res.json.error.message).toContain(sentence);
  });

  it('degrades to 202 with the task: over the row limit, after the timeout, and with no free slot', async () => {
    runs(async (id) => {
      await markRunning(rt.database.db, id);
      await recordProbe(rt.database.db, id, 11, 1);
    });
    const big = await sync(a.api_key, taskBody({ operator_id: 'sync-big' }));
    expect(big.status).toBe(202);
    expect(big.headers.get('x-sync-fallback')).toBe('over_row_limit');
    expect(big.json).toMatchObject({ status: 'running', progress: expect.objectContaining({ total_rows: 11 }) });
    expect(big.headers.get('location')).toBe(`/v1/tasks/${big.json.task_id}`);

    // A run that never finishes holds the only sync slot until the timeout.
    runs(async () => {});
    const slow = sync(a.api_key, taskBody({ operator_id: 'sync-slow' }));
    const crowded = await sync(a.api_key, taskBody({ operator_id: 'sync-crowded' }));
    expect(crowded.status).toBe(202);
    expect(crowded.headers.get('x-sync-fallback')).toBe('no_free_slot');
    expect(crowded.json.status).toBe('queued');
    const late = await slow;
    expect(late.status).toBe(202);
    expect(late.headers.get('x-sync-fallback')).toBe('timeout');

    // The caller left, the run goes on: the slot stays taken until the run ends, then comes back.
    runs((id) => rt.succeed(id, CSV));
    expect((await sync(a.api_key, taskBody({ operator_id: 'sync-still-held' }))).headers.get('x-sync-fallback')).toBe('no_free_slot');
    // Every run of this test ends (the played ones never did), which frees the project's slots too.
    for (const status of ['running', 'queued']) {
      for (const t of (await rt.call('GET', `/v1/tasks?status=${status}`, { token: a.api_key })).json.items) await rt.succeed(t.task_id, CSV);
    }
    await expect.poll(async () => (await sync(a.api_key, taskBody({ operator_id: `sync-freed-${Date.now()}` }))).status, { timeout: 10_000, interval: 250 }).toBe(200);
  });

  it('gives another project its own task for the same body and key, never the first one', async () => {
    runs((id) => rt.succeed(id, CSV));
    const headers = { 'idempotency-key': 'same-key' };
    const mine = await sync(a.api_key, taskBody({ operator_id: 'sync-shared' }), headers);
    const theirs = await sync(b.api_key, taskBody({ operator_id: 'sync-shared' }), headers);
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    expect(theirs.headers.get('x-task-id')).not.toBe(mine.headers.get('x-task-id'));
    expectError(await rt.call('GET', `/v1/tasks/${mine.headers.get('x-task-id')}`, { token: b.api_key }), 404, 'not_found');
  });

  it('refuses a bad body (422 naming the field, 400 for bad JSON) and needs a project key', async () => {
    const res = await sync(a.api_key, { operator_id: 'x' });
    expectError(res, 422, 'validation_failed');
    expect(res.json.error.details[0].field).toBe('source_url');
    expectError(await rt.call('POST', '/v1/tasks/sync', { token: a.api_key, raw: '[', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
    await expectKeyRefusals(rt, 'POST', '/v1/tasks/sync', { project: a.api_key }, { body: taskBody() });
  });
});

itCalledItsRoutes('sync', () => rt);
