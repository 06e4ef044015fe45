// The delivering stage on the time-skipping server with fake activities: a task with a
// destination is completed only with its delivered files; a permanent refusal fails it at once,
// keeping its files; a transient one is retried with backoff; a task without one never delivers.
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { expect, inject, it } from 'vitest';
import { exportWorkflow } from '../../workflows/export.js';
import { type ExportActivities, fakes, input, probeOf, recorder } from '../support/export-fakes.js';
import { timeSkippingPerTest } from '../support/time-skipping.js';

const taskQueue = `wf-deliver-${randomUUID()}`;
const env = timeSkippingPerTest();

let lastId = '';
async function run(activities: ExportActivities, destination = true) {
  const taskId = (lastId = `t-${randomUUID()}`);
  const worker = await Worker.create({ connection: env().nativeConnection, taskQueue, workflowBundle: { code: inject('workflowBundleCode') }, activities });
  return worker.runUntil(env().client.workflow.execute(exportWorkflow, { taskQueue, workflowId: taskId, args: [{ ...input(taskId), ...(destination ? { destination: true } : {}) }] }).catch((e: unknown) => e));
}

/** The run's history replays against today's workflows. */
async function replays(): Promise<void> {
  const history = await env().client.workflow.getHandle(lastId).fetchHistory();
  await Worker.runReplayHistory({ workflowBundle: { code: inject('workflowBundleCode') } }, history, lastId);
}

it('delivers after publishing and completes the task with the delivered files', async () => {
  const rec = recorder();
  expect(await run(fakes(rec, probeOf(250)))).toEqual({ status: 'succeeded' });
  const names = rec.names();
  expect(names.slice(names.indexOf('publishFiles'))).toEqual(['publishFiles', 'setStage', 'deliverFiles', 'completeTask']);
  expect(rec.of('setStage').at(-1)!.input).toMatchObject({ stage: 'delivering' });
  expect(rec.of('completeTask')[0]!.input.files[0]).toMatchObject({ name: 'export.csv', delivered_to: 's3://bucket/export.csv' });
  await replays();
});

it('fails the task at once on a permanent refusal, keeping its files (no discard)', async () => {
  const rec = recorder();
  const outcome = await run(
    fakes(rec, probeOf(250), {
      deliverFiles: async () => {
        throw ApplicationFailure.create({ type: 'destination_auth_failed', nonRetryable: true, message: 'the bucket refused the access key or secret' });
      },
    }),
  );
  expect(outcome).toBeInstanceOf(WorkflowFailedError);
  expect((outcome as WorkflowFailedError).cause).toMatchObject({ type: 'destination_auth_failed' });
  expect(rec.of('deliverFiles')).toHaveLength(1);
  expect(rec.of('failTask')).toHaveLength(1);
  expect(rec.of('failTask')[0]!.input).toMatchObject({ code: 'destination_auth_failed', files: [{ name: 'export.csv' }] });
  expect(rec.of('discardStaged')).toEqual([]);
  expect(rec.of('completeTask')).toEqual([]);
  await replays();
});

it('retries a transient failure with backoff, then succeeds', async () => {
  const rec = recorder();
  const outcome = await run(
    fakes(rec, probeOf(250), {
      deliverFiles: async ({ files }) => {
        if (rec.of('deliverFiles').length < 3) throw ApplicationFailure.create({ type: 'destination_unreachable', message: 'connection refused' });
        return { files };
      },
    }),
  );
  expect(outcome).toEqual({ status: 'succeeded' });
  expect(rec.of('deliverFiles')).toHaveLength(3);
});

it('never delivers a task without a destination', async () => {
  const rec = recorder();
  expect(await run(fakes(rec, probeOf(250)), false)).toEqual({ status: 'succeeded' });
  expect(rec.of('deliverFiles')).toEqual([]);
  expect(rec.of('setStage').map((c) => c.input.stage)).not.toContain('delivering');
});
