// One export, workflowId = task id. Deterministic orchestration only: every side effect is an
// activity, and only keys, counts and checksums pass through history.
import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../model/activities.js';
import type { ExportType } from '../model/task.js';
import { PAGES_PER_ACTIVITY, PAGES_PER_CHUNK } from '../model/plan.js';
import { endWithError, publishAndComplete, TaskFailed } from './export-end.js';
import type { ExportInput, ExportOutput } from './export-io.js';
import { describe, fetchAll } from './fetch-all.js';
import { PauseControl } from './pause.js';
import * as profiles from './profiles.js';
import { Visibility } from './visibility.js';

export type { ExportInput, ExportOutput } from './export-io.js';
export { FAILED_STATUS_PATCH, UNRECORDED_END_PATCH } from './export-end.js';

/**
 * Runs started after this patch take their short steps (start, stage writes, the staged check,
 * completion) as local activities, each a round trip less (ADR 0020). Earlier runs replay
 * their recorded activity tasks.
 */
export const LEAN_STEPS_PATCH = 'dc-lean-steps';
/** Runs started after this patch publish their files locally too (the step after the render). */
export const LEAN_PUBLISH_PATCH = 'dc-lean-publish';
/** Runs started after this patch fetch up to PAGES_PER_CHUNK pages per activity (model/plan.ts). */
export const LANE_CHUNKS_PATCH = 'dc-lane-chunks';

/**
 * Runs started after this patch render with one activity that picks the renderer by the task's type
 * (jsonl and parquet came with it); earlier runs replay their renderCsv / renderXlsx.
 */
export const RENDER_BY_TYPE_PATCH = 'dc-render-by-type';

/** The render step of a run: renderFile where patched, else the one the type named before. */
export function renderStep(acts: Pick<Activities, 'renderCsv' | 'renderXlsx' | 'renderFile'>, type: ExportType | undefined): Activities['renderFile'] {
  // Patch retirement: docs/adr/0024-workflow-patches-and-retirement.md
  if (patched(RENDER_BY_TYPE_PATCH)) return acts.renderFile;
  return type === 'excel' ? acts.renderXlsx : acts.renderCsv;
}

export async function exportWorkflow(input: ExportInput): Promise<ExportOutput> {
  const { taskId } = input;
  const heartbeat = input.heartbeatTimeoutMs ?? 10_000;
  const state = proxyActivities<Activities>(profiles.taskState);
  const waiting = proxyActivities<Activities>(profiles.slotWait);
  // Patch retirement (these three and the one in endWithError): docs/adr/0024-workflow-patches-and-retirement.md
  const quick = patched(LEAN_STEPS_PATCH) ? proxyLocalActivities<Activities>(profiles.localTaskState) : undefined;
  const chunkPages = patched(LANE_CHUNKS_PATCH) ? PAGES_PER_CHUNK : PAGES_PER_ACTIVITY;
  const steps = quick ?? state;
  const work = proxyActivities<Activities>(profiles.work);
  const publisher = quick && patched(LEAN_PUBLISH_PATCH) ? proxyLocalActivities<Activities>(profiles.localPublish) : work;
  const source = proxyActivities<Activities>(profiles.source(input.retry, heartbeat));
  const resume = proxyActivities<Activities>(profiles.source(input.retry, heartbeat, 1));
  const deliver = input.destination ? proxyActivities<Activities>(profiles.deliver) : undefined;
  const pause = new PauseControl();
  const ui = new Visibility();
  const stage = async (s: 'rendering' | 'uploading') => {
    await steps.setStage({ taskId, stage: s });
    ui.setStage(s);
  };

  try {
    const { proceed, status } = await start(taskId, waiting, quick);
    if (!proceed) {
      // The task left the queue before its run began (cancelled or paused meanwhile).
      if (status === 'cancelled' || status === 'paused') ui.setStatus(status);
      return { status: 'skipped' };
    }
    ui.setStatus('running');
    ui.setStage('probing');
    if ((await pause.fetch(() => fetchAll(taskId, { source, resume, work, ...(quick ? { verify: quick } : {}) }, input.retry, { resumed: input.resume, progress: ui, chunkPages }))) === 'paused') {
      await state.pauseTask({ taskId, stages: ui.timings() });
      ui.setStatus('paused');
      pause.paused();
      return { status: 'paused' };
    }
    await stage('rendering');
    const { outputs } = await renderStep(work, input.type)({ taskId });
    await stage('uploading');
    return await publishAndComplete(input, { state: steps, work: publisher, ...(deliver ? { deliver } : {}) }, ui, outputs);
  } catch (err) {
    if (err instanceof TaskFailed) throw err.failure;
    return await endWithError(err, input, { state, work }, ui);
  }
}

/** queued → running: locally in a lean run, unless the task must wait for a slot (then as an activity, profiles.slotWait). */
async function start(taskId: string, waiting: Activities, quick: Activities | undefined): ReturnType<Activities['startTask']> {
  if (!quick) return waiting.startTask({ taskId });
  try {
    return await quick.startTask({ taskId });
  } catch (err) {
    if (describe(err).code !== 'waiting_for_slot') throw err;
    return waiting.startTask({ taskId });
  }
}
