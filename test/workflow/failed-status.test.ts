// Temporal's own status of a failed export: the run ends Failed with
// the task's error code as the failure type, after the task row is failed and its callback is
// started, and is not run again. On the time-skipping test server with fake activities.
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { expect, it } from 'vitest';
import { exportWorkflow } from '../../workflows/export.js';
import { type ExportActivities, fakes, input, probeOf, recorder, withCallbackWorker } from '../support/export-fakes.js';
import { patchIds } from '../support/histories.js';
import { timeSkippingPerTest } from '../support/time-skipping.js';

const taskQueue = `wf-failed-${randomUUID()}`;
const env = timeSkippingPerTest();

const badResponse = () => ApplicationFailure.create({ type: 'source_bad_response', nonRetryable: true, message: 'HTTP 404 on page 1' });

/** Runs one export with a callback to the end; what it threw (or returned), its status and history. */
async function runFailing(activities: ExportActivities) {
  const taskId = `t-${randomUUID()}`;
  const { result, delivered } = await withCallbackWorker(env(), taskQueue, activities, async () => {
    const handle = await env().client.workflow.start(exportWorkflow, { taskQueue, workflowId: taskId, args: [{ ...input(taskId), callback: true }] });
    const outcome = await handle.result().catch((err: unknown) => err);
    // The callback is an abandoned child: let it finish before the worker stops.
    await env().client.workflow.getHandle(`${taskId}.callback.1`).result().catch(() => undefined);
    const events = (await handle.fetchHistory()).events ?? [];
    return { outcome, status: (await handle.describe()).status.name, events, handle };
  });
  return { ...result, delivered };
}

it('ends a failed export as Failed, the error code its type, once the task is failed and its callback started', async () => {
  const rec = recorder();
  const { outcome, status, events, delivered } = await runFailing(
    fakes(rec, probeOf(250), {
      fetchPages: async () => {
        throw badResponse();
      },
    }),
  );

  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  expect((outcome as WorkflowFailedError).cause).toMatchObject({ type: 'source_bad_response', nonRetryable: true, message: 'HTTP 404 on page 1' });
  expect(status).toBe('FAILED');
  expect(rec.of('failTask')[0]!.input).toMatchObject({ code: 'source_bad_response' });
  expect(delivered).toEqual([expect.objectContaining({ event: 'task.failed', run: 1 })]);

  const failedAt = events.findIndex((e) => e.workflowExecutionFailedEventAttributes);
  const childAt = events.findIndex((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
  expect(failedAt).toBe(events.length - 1);
  expect(childAt).toBeGreaterThan(0);
  expect(childAt).toBeLessThan(failedAt);
  const failed = events[failedAt]!.workflowExecutionFailedEventAttributes!;
  expect(failed.failure?.applicationFailureInfo).toMatchObject({ type: 'source_bad_response', nonRetryable: true });
  // Not run again: no retry policy, so no next run.
  expect(failed.newExecutionRunId ?? '').toBe('');
  expect(events[0]!.workflowExecutionStartedEventAttributes?.retryPolicy ?? null).toBeNull();
  // The 1.0 baseline: the end is the only code, behind no patch.
  expect(patchIds(events)).toEqual([]);
});

it('completes the run when the task was cancelled as it failed (its status is the cancel’s)', async () => {
  const rec = recorder();
  const { outcome, status, delivered } = await runFailing(
    fakes(rec, probeOf(250), {
      fetchPages: async () => {
        throw badResponse();
      },
      failTask: async () => ({ ok: false }),
    }),
  );

  expect(outcome).toEqual({ status: 'failed', errorCode: 'source_bad_response' });
  expect(status).toBe('COMPLETED');
  expect(delivered).toEqual([]);
});

it('fails the task even when the store refuses to discard the run’s objects through every retry', async () => {
  const rec = recorder();
  const { outcome, status, events } = await runFailing(
    fakes(rec, probeOf(250), {
      fetchPages: async () => {
        throw badResponse();
      },
      discardStaged: async () => {
        throw ApplicationFailure.create({ type: 'storage_failed', nonRetryable: true, message: 'S3 unreachable' });
      },
    }),
  );

  // The objects are left behind, not the task: it is failed all the same.
  expect(rec.of('discardStaged')).toHaveLength(1);
  expect(rec.of('failTask')[0]!.input).toMatchObject({ code: 'source_bad_response' });
  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  expect((outcome as WorkflowFailedError).cause).toMatchObject({ type: 'source_bad_response' });
  expect(status).toBe('FAILED');
  expect(events.at(-1)?.workflowExecutionFailedEventAttributes).toBeTruthy();
});
