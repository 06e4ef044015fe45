// A run whose task's end cannot be recorded still ends (issue 30): failTask or
// markCancelled refused through all their bounded retries (workflows/profiles.ts) end the run
// Failed with the task's own code, or Cancelled, instead of retrying for ever with the task
// `running`; the reconciler then ends the task from that (domain/tasks/reconcile.ts). On the
// time-skipping test server with fake activities: the retries' waits pass in virtual time.
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { expect, it } from 'vitest';
import { exportWorkflow } from '../../workflows/export.js';
import { TASK_STATE_MAX_ATTEMPTS } from '../../workflows/profiles.js';
import { syncExportWorkflow } from '../../workflows/sync-export.js';
import { type ExportActivities, fakes, input, probeOf, recorder, withCallbackWorker } from '../support/export-fakes.js';
import { timeSkippingPerTest } from '../support/time-skipping.js';

const taskQueue = `wf-unrecorded-${randomUUID()}`;
const env = timeSkippingPerTest();

/** What the database does to a write it refuses for good: a retryable error, every attempt. */
const refused = async (): Promise<never> => {
  throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
};

async function run(activities: ExportActivities, opts: { sync?: boolean; cancel?: boolean } = {}) {
  const taskId = `t-${randomUUID()}`;
  const { result, delivered } = await withCallbackWorker(env(), taskQueue, activities, async () => {
    const args = { ...input(taskId), callback: true };
    const handle = opts.sync
      ? await env().client.workflow.start(syncExportWorkflow, { taskQueue, workflowId: taskId, args: [{ ...args, maxRows: 1000 }] })
      : await env().client.workflow.start(exportWorkflow, { taskQueue, workflowId: taskId, args: [args] });
    if (opts.cancel) {
      while (!(await handle.fetchHistory()).events?.some((e) => e.activityTaskStartedEventAttributes)) await new Promise((r) => setTimeout(r, 50));
      await handle.cancel();
    }
    const outcome = await handle.result().catch((err: unknown) => err);
    return { outcome, status: (await handle.describe()).status.name };
  });
  return { ...result, delivered };
}

const badResponse = async (): Promise<never> => {
  throw ApplicationFailure.create({ type: 'source_bad_response', nonRetryable: true, message: 'column "a\u0000b": HTTP 404 on page 1' });
};

it('ends a run whose failTask the database refuses through every retry: Failed with the task’s code, no callback', async () => {
  const rec = recorder();
  const { outcome, status, delivered } = await run(fakes(rec, probeOf(250), { fetchPages: badResponse, failTask: refused }));

  expect(rec.of('failTask')).toHaveLength(TASK_STATE_MAX_ATTEMPTS);
  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  expect((outcome as WorkflowFailedError).cause).toMatchObject({ type: 'source_bad_response', nonRetryable: true, message: 'column "a\u0000b": HTTP 404 on page 1' });
  expect(status).toBe('FAILED');
  // The task row still says running: the reconciler tells of the end, not this run.
  expect(delivered).toEqual([]);
});

it('ends a run whose completeTask and failTask are both refused', async () => {
  const rec = recorder();
  const completeRefused = async (): Promise<never> => {
    throw ApplicationFailure.create({ type: 'internal_error', nonRetryable: true, message: 'the update was refused' });
  };
  const { outcome, status } = await run(fakes(rec, probeOf(250), { completeTask: completeRefused, failTask: refused }));

  expect(rec.of('completeTask')).toHaveLength(1);
  expect(rec.of('failTask')).toHaveLength(TASK_STATE_MAX_ATTEMPTS);
  expect((outcome as WorkflowFailedError).cause).toMatchObject({ type: 'internal_error', message: 'the update was refused' });
  expect(status).toBe('FAILED');
});

it('ends a cancelled run whose markCancelled is refused: Cancelled', async () => {
  const rec = recorder();
  const { outcome, status } = await run(
    fakes(rec, probeOf(250), {
      fetchPages: async () => {
        // Heartbeats (the only way a cancellation reaches it) until cancelled.
        const ctx = Context.current();
        for (;;) {
          ctx.heartbeat();
          await ctx.sleep(100);
        }
      },
      markCancelled: refused,
    }),
    { cancel: true },
  );

  expect(rec.of('markCancelled')).toHaveLength(TASK_STATE_MAX_ATTEMPTS);
  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  expect(status).toBe('CANCELLED');
});

it('ends a sync export whose failTask is refused (its local retries are bounded too)', async () => {
  const rec = recorder();
  const { outcome, status } = await run(fakes(rec, probeOf(50), { fetchPages: badResponse, failTask: refused }), { sync: true });

  expect(rec.of('failTask').length).toBeGreaterThan(0);
  expect((outcome as WorkflowFailedError).cause).toMatchObject({ type: 'source_bad_response' });
  expect(status).toBe('FAILED');
});
