// A small export for POST /v1/tasks/sync (docs/adr/0017-lean-sync-exports.md): the same steps as
// exportWorkflow, with the same activities (host checks, limits, formula rules, the store), run as
// local activities. They run in the worker that holds the workflow task, one after another within
// it: no task-queue round trip and no workflow task per step, so the whole export is usually one
// workflow task. Stage writes are left out (the caller waits for the file, not for the stages).
// A source over the sync row limit goes back to its project's queue and becomes an ordinary
// export: the run continues as exportWorkflow when admitted at once, or ends and admission starts
// the export later, like any queued task's.
import { CancellationScope, isCancellation, makeContinueAsNewFunc, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities, ProbeOutput } from '../model/activities.js';
import { type ExportInput, type ExportOutput, type exportWorkflow, notify } from './export.js';
import { describe, fetchAll } from './fetch-all.js';
import * as profiles from './profiles.js';
import { Visibility } from './visibility.js';

export interface SyncExportInput extends ExportInput {
  /** SYNC_MAX_ROWS: a source reporting more rows is exported asynchronously instead. */
  maxRows: number;
}

export async function syncExportWorkflow(input: SyncExportInput): Promise<ExportOutput> {
  const { taskId } = input;
  const local = proxyLocalActivities<Activities>(profiles.local(input.retry));
  const ui = new Visibility();

  try {
    const { proceed, status } = await local.startTask({ taskId });
    if (!proceed) {
      if (status === 'cancelled' || status === 'paused') ui.setStatus(status);
      return { status: 'skipped' };
    }
    ui.setStatus('running');
    ui.setStage('probing');
    const probe = await local.probeSource({ taskId });
    if (probe.total <= input.maxRows) return await exportSmall(input, local, ui, probe);
    const { admitted } = await local.requeueTask({ taskId });
    ui.setStatus('queued');
    // Admitted: continued below, outside this try, as continuing as new is thrown.
    if (!admitted) return { status: 'queued' };
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        await local.discardStaged({ taskId, files: true });
        await local.markCancelled({ taskId, stages: ui.timings() });
      });
      ui.setStatus('cancelled');
      throw err;
    }
    const { code, message } = describe(err);
    await local.discardStaged({ taskId, files: true });
    const { ok } = await local.failTask({ taskId, code, message, stages: ui.timings() });
    ui.setStatus(ok ? 'failed' : 'cancelled');
    if (ok) await notify(input, 'task.failed');
    return { status: 'failed', errorCode: code };
  }
  // Admitted at once: this run continues as the ordinary export (a fresh probe plans its lanes as
  // any export's). The search attributes carry over to the new run.
  const { maxRows: _, ...exportInput } = input;
  return makeContinueAsNewFunc<typeof exportWorkflow>({ workflowType: 'exportWorkflow' })(exportInput);
}

async function exportSmall(input: SyncExportInput, local: Activities, ui: Visibility, probe: ProbeOutput): Promise<ExportOutput> {
  const { taskId } = input;
  await fetchAll(taskId, { source: local, resume: local, work: local }, input.retry, false, ui, probe);
  ui.setStage('rendering');
  const { outputs } = await (input.type === 'excel' ? local.renderXlsx : local.renderCsv)({ taskId });
  ui.setStage('uploading');
  const { files } = await local.publishFiles({ taskId, outputs });
  const { ok } = await local.completeTask({ taskId, files, stages: ui.timings() });
  if (!ok) {
    // Cancelled while publishing: the files of a cancelled task must not stay.
    await local.discardStaged({ taskId, files: true });
    ui.setStatus('cancelled');
    return { status: 'cancelled' };
  }
  ui.setStatus('succeeded');
  await notify(input, 'task.succeeded');
  return { status: 'succeeded' };
}
