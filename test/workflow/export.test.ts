// The export workflow's orchestration rules, on the time-skipping test server with fake activities
// (test/support/export-fakes.ts): the restart-once rule, lanes cancelled together, the slot wait and
// the resume after stored pages. No database, source or storage: the fakes record every call, and
// the assertions are on those calls and on the workflow result. Timers and retry backoffs pass in
// virtual time.
import { randomUUID } from 'node:crypto';
import { CancelledFailure, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { planLanes, PAGES_PER_CHUNK } from '../../model/plan.js';
import { type ExportOutput, exportWorkflow } from '../../workflows/export.js';
import { type ExportActivities, fakes, input, probeOf, recorder } from '../support/export-fakes.js';
import { timeSkippingPerTest } from '../support/time-skipping.js';

const taskQueue = `wf-export-${randomUUID()}`;
const env = timeSkippingPerTest();

async function runExport(activities: ExportActivities, taskId = `t-${randomUUID()}`): Promise<ExportOutput> {
  const worker = await Worker.create({
    connection: env().nativeConnection,
    taskQueue,
    workflowBundle: { code: inject('workflowBundleCode') },
    activities,
  });
  return worker.runUntil(env().client.workflow.execute(exportWorkflow, { taskQueue, workflowId: taskId, args: [input(taskId)] }));
}

const changed = (message = 'the total changed from 250 to 260') => ApplicationFailure.create({ type: 'source_changed', nonRetryable: true, message });

describe('the restart-once rule', () => {
  it('discards what was staged, probes again and succeeds when the source changed once', async () => {
    const rec = recorder();
    const result = await runExport(
      fakes(rec, probeOf(250), {
        fetchPages: async (i) => {
          // Only the lanes planned from the first probe see the change.
          if (rec.of('probeSource').length === 1) throw changed();
          return { pages: i.toPage - i.fromPage, rows: 250 };
        },
      }),
    );

    expect(result).toEqual({ status: 'succeeded' });
    expect(rec.of('probeSource')).toHaveLength(2);
    expect(rec.names()).toEqual([
      'startTask',
      'probeSource',
      'fetchPages', // source_changed
      'discardStaged', // the fresh start: staged pages only, not files
      'probeSource',
      'fetchPages',
      'verifyStaged',
      'setStage',
      'renderFile',
      'setStage',
      'publishFiles',
      'completeTask',
    ]);
    expect(rec.of('discardStaged')[0]!.input).toEqual({ taskId: expect.any(String) });
    // source_changed is permanent: no activity-level retry of the fetch within an attempt.
    expect(rec.of('fetchPages').map((c) => c.input)).toEqual([
      expect.objectContaining({ lane: 0, fromPage: 0, toPage: 3 }),
      expect.objectContaining({ lane: 0, fromPage: 0, toPage: 3 }),
    ]);
    expect(rec.of('failTask')).toHaveLength(0);
  });

  it('fails with source_changed when the source changes again after the restart', async () => {
    const rec = recorder();
    const taskId = `t-${randomUUID()}`;
    const run = runExport(
      fakes(rec, probeOf(250), {
        fetchPages: async () => {
          throw changed();
        },
      }),
      taskId,
    );

    // The run ends Failed with the task's code (test/workflow/failed-status.test.ts).
    await expect(run).rejects.toMatchObject({ cause: { type: 'source_changed', nonRetryable: true } });
    expect(rec.of('probeSource')).toHaveLength(2);
    expect(rec.of('fetchPages')).toHaveLength(2);
    expect(rec.names()).toEqual(['startTask', 'probeSource', 'fetchPages', 'discardStaged', 'probeSource', 'fetchPages', 'discardStaged', 'failTask']);
    const fail = rec.of('failTask');
    expect(fail).toHaveLength(1);
    // The stage times are the workflow's (virtual) time in probing and fetching, for the metrics.
    expect(fail[0]!.input).toEqual({ taskId, code: 'source_changed', message: expect.stringMatching(/restarted once/), stages: { probing: expect.any(Number), fetching: expect.any(Number) } });
    expect(fail[0]!.input.message).toContain('the total changed from 250 to 260');
    expect(rec.of('verifyStaged')).toHaveLength(0);
    expect(rec.of('renderFile')).toHaveLength(0);
  });
});

describe('lanes are cancelled together', () => {
  it('cancels every other lane when one fails, and discards only once all lanes have stopped', async () => {
    const probe = probeOf(60_000); // 600 pages: 5 lanes of 120
    const lanes = planLanes(probe.total, probe.pageSize);
    expect(lanes).toHaveLength(5);
    const failing = 2;
    const waiting = lanes.filter((l) => l.lane !== failing).map((l) => l.lane);
    const rec = recorder();
    const started = new Set<number>();
    let allStarted: () => void = () => {};
    const othersStarted = new Promise<void>((resolve) => (allStarted = resolve));
    const run = runExport(
      fakes(rec, probe, {
        fetchPages: async (i) => {
          const ctx = Context.current();
          if (i.lane === failing) {
            // Fail only once every other lane is really fetching, so each has something to cancel.
            let timer: NodeJS.Timeout | undefined;
            await Promise.race([othersStarted, new Promise((r) => (timer = setTimeout(r, 20_000)))]);
            clearTimeout(timer);
            throw ApplicationFailure.create({ type: 'source_bad_response', nonRetryable: true, message: 'page 240: expected JSON' });
          }
          started.add(i.lane);
          if (waiting.every((l) => started.has(l))) allStarted();
          try {
            // A long fetch: heartbeats (the only way a cancellation reaches it) until cancelled.
            // Cancellation arrives within a heartbeat interval (< 2 s); 10 s means it never came.
            for (let n = 0; n < 100; n++) {
              ctx.heartbeat({ nextPage: i.fromPage });
              await ctx.sleep(100);
            }
            throw ApplicationFailure.create({ type: 'test_lane_not_cancelled', nonRetryable: true, message: `lane ${i.lane} was never cancelled` });
          } catch (err) {
            if (!(err instanceof CancelledFailure) || !ctx.cancellationSignal.aborted) throw err;
            // Stopping takes a moment (an in-flight request, a page being written): the cleanup must wait for it.
            await new Promise((r) => setTimeout(r, 300));
            rec.stopped.push({ lane: i.lane, seq: rec.next() });
            throw err;
          }
        },
      }),
    );

    await expect(run).rejects.toMatchObject({ cause: { type: 'source_bad_response', nonRetryable: true } });
    // Each lane's first chunk ran once: a permanent error and a cancellation are not retried.
    expect(rec.of('fetchPages').map((c) => c.input.lane).sort()).toEqual([0, 1, 2, 3, 4]);
    // (Up to PAGES_PER_CHUNK pages per activity: a lane of 120 is one.)
    expect(rec.of('fetchPages').every((c) => c.input.fromPage === lanes[c.input.lane]!.fromPage && c.input.toPage === Math.min(lanes[c.input.lane]!.toPage, lanes[c.input.lane]!.fromPage + PAGES_PER_CHUNK))).toBe(true);
    expect(rec.stopped.map((s) => s.lane).sort(), 'the lanes that saw the cancellation').toEqual(waiting);
    const discards = rec.of('discardStaged');
    expect(discards).toHaveLength(1);
    expect(discards[0]!.seq, 'discardStaged must start after the last lane stopped').toBeGreaterThan(Math.max(...rec.stopped.map((s) => s.seq)));
    expect(rec.of('verifyStaged')).toHaveLength(0);
    const fail = rec.of('failTask');
    expect(fail).toHaveLength(1);
    expect(fail[0]!.input).toMatchObject({ code: 'source_bad_response', message: 'page 240: expected JSON' });
    expect(fail[0]!.seq).toBeGreaterThan(discards[0]!.seq);
  });
});

describe('the slot wait', () => {
  it('retries startTask until a slot is free, in virtual time, then runs the export', async () => {
    const waits = 8;
    const rec = recorder();
    let calls = 0;
    const virtualStart = await env().currentTimeMs();
    const wallStart = Date.now();
    const result = await runExport(
      fakes(rec, probeOf(250), {
        startTask: async () => {
          if (++calls <= waits) throw ApplicationFailure.create({ type: 'waiting_for_slot', message: 'all slots are busy', nextRetryDelay: 2000 });
          return { proceed: true };
        },
      }),
    );
    const wall = Date.now() - wallStart;
    const virtual = (await env().currentTimeMs()) - virtualStart;

    expect(result).toEqual({ status: 'succeeded' });
    expect(rec.of('startTask')).toHaveLength(waits + 1);
    expect(rec.names().slice(waits + 1, waits + 2)).toEqual(['probeSource']);
    expect(rec.of('completeTask')).toHaveLength(1);
    // The first try is a local activity; the 7 waits of 2 s after it passed on the server's clock, not the test's.
    expect(virtual).toBeGreaterThanOrEqual((waits - 1) * 2000);
    expect(wall).toBeLessThan(waits * 2000);
  });

  it('skips the export when startTask says not to proceed', async () => {
    const rec = recorder();
    const result = await runExport(fakes(rec, probeOf(250), { startTask: async () => ({ proceed: false, status: 'cancelled' }) }));

    expect(result).toEqual({ status: 'skipped' });
    expect(rec.names()).toEqual(['startTask']);
  });
});

describe('a transient error after stored pages', () => {
  it('waits Retry-After, then resumes the chunk from nextPage with one failed attempt spent', async () => {
    const rec = recorder();
    const taskId = `t-${randomUUID()}`;
    let first = true;
    const virtualStart = await env().currentTimeMs();
    const result = await runExport(
      fakes(rec, probeOf(250), {
        fetchPages: async (i) => {
          if (first) {
            first = false;
            // Page 0 stored, then a 429 with Retry-After: 30 on page 1.
            return { pages: 1, rows: 100, nextPage: 1, retryAfterMs: 30_000 };
          }
          return { pages: i.toPage - i.fromPage, rows: 150 };
        },
      }),
      taskId,
    );
    const virtual = (await env().currentTimeMs()) - virtualStart;

    expect(result).toEqual({ status: 'succeeded' });
    const fetches = rec.of('fetchPages').map((c) => c.input);
    expect(fetches).toEqual([
      { taskId, lane: 0, laneFromPage: 0, fromPage: 0, toPage: 3 },
      { taskId, lane: 0, laneFromPage: 0, fromPage: 1, toPage: 3, failedAttempts: 1, maxAttempts: 3 },
    ]);
    expect(rec.of('probeSource')).toHaveLength(1);
    expect(rec.of('discardStaged')).toHaveLength(0);
    expect(virtual).toBeGreaterThanOrEqual(30_000);
  });
});

describe('a failure outside the error vocabulary', () => {
  it('ends the task with internal_error, not the raw error\'s type, and says what it was', async () => {
    const rec = recorder();
    const taskId = `t-${randomUUID()}`;
    const run = runExport(
      fakes(rec, probeOf(250), {
        // What a fake (or a worker from before the boundary) throws unclassified: the type is "Error".
        renderFile: async () => {
          throw Object.assign(new Error("ENAMETOOLONG: name too long, open '/data/staging/x.csv'"), { code: 'ENAMETOOLONG' });
        },
      }),
      taskId,
    );

    // The run ends Failed with the task's code as its failure type.
    await expect(run).rejects.toMatchObject({ cause: { type: 'internal_error', nonRetryable: true } });
    expect(rec.of('failTask')[0]!.input).toMatchObject({ taskId, code: 'internal_error', message: expect.stringContaining('ENAMETOOLONG') });
  });
});
