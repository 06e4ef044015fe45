// A small export for POST /v1/tasks/sync (docs/adr/0017-lean-sync-exports.md; on the sync queue, run
// by the API processes, docs/adr/0054-sync-runs-in-the-api-process.md): the same steps as
// exportWorkflow, with the same activities (host checks, limits, formula rules, the store), run as
// local activities. They run in the worker that holds the workflow task, one after another within
// it: no task-queue round trip and no workflow task per step, so the whole export is usually one
// workflow task. Stage writes are left out (the caller waits for the file, not for the stages).
// A source over the sync row limit goes back to its project's queue and becomes an ordinary
// export: the run continues as exportWorkflow when admitted at once, or ends and admission starts
// the export later, like any queued task's.
import { makeContinueAsNewFunc, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities, ProbeOutput } from '../model/activities.js';
import { endWithError, publishAndComplete } from './export-end.js';
import type { ExportInput, ExportOutput } from './export-io.js';
import type { exportWorkflow } from './export.js';
import { fetchAll } from './fetch-all.js';
import * as profiles from './profiles.js';
import { Visibility } from './visibility.js';

export interface SyncExportInput extends ExportInput {
  /** SYNC_MAX_ROWS: a source reporting more rows is exported asynchronously instead. */
  maxRows: number;
}

/** Every step of the sync export, as local activities of one profile. */
type SyncSteps = Pick<
  Activities,
  'startTask' | 'probeSource' | 'requeueTask' | 'fetchPages' | 'stagedGaps' | 'verifyStaged' | 'renderFile' | 'publishFiles' | 'discardStaged' | 'setStage' | 'completeTask' | 'failTask' | 'markCancelled'
>;

export async function syncExportWorkflow(input: SyncExportInput): Promise<ExportOutput> {
  const { taskId } = input;
  const local = proxyLocalActivities<SyncSteps>(profiles.local(input.retry));
  const ui = new Visibility();

  try {
    const started = await local.startTask({ taskId });
    if (!started.proceed) {
      if (started.status === 'cancelled' || started.status === 'paused') ui.setStatus(started.status);
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
    return await endWithError(err, input, { state: local, work: local }, ui);
  }
  // Admitted at once: this run continues as the ordinary export (a fresh probe plans its lanes as
  // any export's). The search attributes carry over to the new run.
  const { maxRows: _, exportQueue, ...exportInput } = input;
  // A run without exportQueue continues as it always did, on its own queue: the same command on
  // replay, so no patch (docs/adr/0040-workflow-versioning-from-1.0.md).
  const onQueue = exportQueue ? { taskQueue: exportQueue } : {};
  return makeContinueAsNewFunc<typeof exportWorkflow>({ workflowType: 'exportWorkflow', ...onQueue })(exportInput);
}

async function exportSmall(input: SyncExportInput, local: SyncSteps, ui: Visibility, probe: ProbeOutput): Promise<ExportOutput> {
  const { taskId } = input;
  await fetchAll(taskId, { source: local, resume: local, work: local, verify: local }, input.retry, { progress: ui, probed: probe });
  ui.setStage('rendering');
  const { outputs } = await local.renderFile({ taskId });
  ui.setStage('uploading');
  return publishAndComplete(input, { state: local, work: local }, ui, outputs);
}
