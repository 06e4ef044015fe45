// The sync export's orchestration (workflows/sync-export.ts) on the time-skipping test server with
// fake activities: the steps are local activities (no ActivityTaskScheduled in the history), a
// failing source step fails the task, and a source over the sync limit goes back to the queue:
// continued as the ordinary export when admitted, ended when not.
import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { syncExportWorkflow } from '../../workflows/sync-export.js';
import { type ExportActivities, fakes, input, probeOf, recorder } from '../support/export-fakes.js';
import { timeSkippingPerTest } from '../support/time-skipping.js';

const taskQueue = `wf-sync-${randomUUID()}`;
const env = timeSkippingPerTest();

async function runSync(activities: ExportActivities, maxRows = 1000, taskId = `t-${randomUUID()}`) {
  const worker = await Worker.create({ connection: env().nativeConnection, taskQueue, workflowBundle: { code: inject('workflowBundleCode') }, activities });
  return worker.runUntil(async () => {
    const handle = await env().client.workflow.start(syncExportWorkflow, { taskQueue, workflowId: taskId, args: [{ ...input(taskId), maxRows }] });
    const result = await handle.result();
    const events = (await handle.fetchHistory()).events ?? [];
    return { result, events, handle };
  });
}

describe('the sync export', () => {
  it('runs every step as a local activity and succeeds', async () => {
    const rec = recorder();
    const { result, events } = await runSync(fakes(rec, probeOf(250)));
    expect(result).toEqual({ status: 'succeeded' });
    // No stage writes: the caller waits for the file, not for the stages.
    expect(rec.names()).toEqual(['startTask', 'probeSource', 'fetchPages', 'verifyStaged', 'renderFile', 'publishFiles', 'completeTask']);
    // The probe is made once: its answer plans the lanes.
    expect(rec.of('fetchPages').map((c) => [c.input.fromPage, c.input.toPage])).toEqual([[0, 3]]);
    expect(events.some((e) => e.activityTaskScheduledEventAttributes)).toBe(false);
    expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity').length).toBe(7);
  });

  it('fails the task with the source step’s code, cleaning up, when the source fails for good', async () => {
    const rec = recorder();
    const run = runSync(
      fakes(rec, probeOf(250), {
        fetchPages: async () => {
          throw ApplicationFailure.create({ type: 'source_bad_response', nonRetryable: true, message: 'HTTP 404 on page 1' });
        },
      }),
    );
    // Like the export's, the run ends Failed with the task's code (the API answers from the task row).
    await expect(run).rejects.toMatchObject({ cause: { type: 'source_bad_response', nonRetryable: true } });
    expect(rec.of('failTask')[0]!.input).toMatchObject({ code: 'source_bad_response', message: 'HTTP 404 on page 1' });
    expect(rec.of('discardStaged')[0]!.input).toMatchObject({ files: true });
    expect(rec.of('completeTask')).toHaveLength(0);
  });

  it('retries a transient probe failure locally, then goes on', async () => {
    const rec = recorder();
    let failures = 0;
    const { result } = await runSync(
      fakes(rec, probeOf(50), {
        probeSource: async () => {
          if (failures++ === 0) throw ApplicationFailure.create({ type: 'source_unreachable', message: 'connection refused' });
          return probeOf(50);
        },
      }),
    );
    expect(result).toEqual({ status: 'succeeded' });
    expect(rec.of('probeSource')).toHaveLength(2);
  });

  it('ends as queued when over the limit and its project has no free slot', async () => {
    const rec = recorder();
    const { result } = await runSync(fakes(rec, probeOf(1200)), 1000);
    expect(result).toEqual({ status: 'queued' });
    expect(rec.names()).toEqual(['startTask', 'probeSource', 'requeueTask']);
  });

  it('continues as the ordinary export when over the limit and admitted at once', async () => {
    const rec = recorder();
    const { result, handle } = await runSync(fakes(rec, probeOf(1200), { requeueTask: async () => ({ admitted: true }) }), 1000);
    // result() follows the run chain: the continued exportWorkflow exported it, probing afresh.
    expect(result).toEqual({ status: 'succeeded' });
    expect((await handle.describe()).type).toBe('exportWorkflow');
    expect(rec.names().slice(0, 5)).toEqual(['startTask', 'probeSource', 'requeueTask', 'startTask', 'probeSource']);
    expect(rec.of('fetchPages').length).toBeGreaterThan(0);
    expect(rec.of('setStage').length).toBeGreaterThan(0);
  });
});
