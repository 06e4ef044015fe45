// One export, workflowId = task id. Deterministic orchestration only: every side effect is an
// activity, and only keys, counts and checksums pass through history. The steps: start the task,
// fetch every page (pausable), render, publish, deliver (a task with a destination), complete.
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../model/activities.js';
import { PAGES_PER_CHUNK } from '../model/plan.js';
import { endWithError, publishAndComplete, TaskFailed } from './export-end.js';
import type { ExportInput, ExportOutput } from './export-io.js';
import { describe, fetchAll } from './fetch-all.js';
import { PauseControl } from './pause.js';
import * as profiles from './profiles.js';
import { Visibility } from './visibility.js';

export type { ExportInput, ExportOutput } from './export-io.js';

type Starts = Pick<Activities, 'startTask'>;

export async function exportWorkflow(input: ExportInput): Promise<ExportOutput> {
  const { taskId, retry, heartbeatTimeoutMs } = input;
  // The short task-row steps as local activities, a task-queue round trip less each (ADR 0020).
  const steps = proxyLocalActivities<Starts & Pick<Activities, 'setStage' | 'verifyStaged' | 'completeTask' | 'failTask'>>(profiles.localTaskState);
  const waiting = proxyActivities<Starts>(profiles.slotWait);
  const source = proxyActivities<Pick<Activities, 'probeSource' | 'fetchPages'>>(profiles.source(retry, heartbeatTimeoutMs));
  const resume = proxyActivities<Pick<Activities, 'fetchPages'>>(profiles.source(retry, heartbeatTimeoutMs, 1));
  const work = proxyActivities<Pick<Activities, 'stagedGaps' | 'discardStaged' | 'renderFile'>>(profiles.work);
  const publish = proxyLocalActivities<Pick<Activities, 'publishFiles' | 'discardStaged'>>(profiles.localPublish);
  const deliver = proxyActivities<Pick<Activities, 'deliverFiles'>>(profiles.deliver);
  // A pause, a failure or a cancel is recorded through the task queue (bounded retries, profiles.taskState).
  const ending = proxyActivities<Pick<Activities, 'pauseTask' | 'failTask' | 'markCancelled'>>(profiles.taskState);
  const pause = new PauseControl();
  const ui = new Visibility();
  const stage = async (s: 'rendering' | 'uploading') => {
    await steps.setStage({ taskId, stage: s });
    ui.setStage(s);
  };

  try {
    const started = await start(taskId, steps, waiting);
    if (!started.proceed) {
      // The task left the queue before its run began (cancelled or paused meanwhile).
      if (started.status === 'cancelled' || started.status === 'paused') ui.setStatus(started.status);
      return { status: 'skipped' };
    }
    ui.setStatus('running');
    ui.setStage('probing');
    const fetching = () => fetchAll(taskId, { source, resume, work, verify: steps }, retry, { resumed: input.resume, progress: ui, chunkPages: PAGES_PER_CHUNK });
    if ((await pause.fetch(fetching)) === 'paused') {
      await ending.pauseTask({ taskId, stages: ui.timings() });
      ui.setStatus('paused');
      pause.paused();
      return { status: 'paused' };
    }
    await stage('rendering');
    const { outputs } = await work.renderFile({ taskId });
    await stage('uploading');
    return await publishAndComplete(input, { state: steps, work: publish, deliver }, ui, outputs);
  } catch (err) {
    if (err instanceof TaskFailed) throw err.failure;
    return await endWithError(err, input, { state: ending, work }, ui);
  }
}

/** queued → running, locally; a task that must wait for its slot waits in an activity (profiles.slotWait). */
async function start(taskId: string, local: Starts, waiting: Starts): ReturnType<Activities['startTask']> {
  try {
    return await local.startTask({ taskId });
  } catch (err) {
    if (describe(err).code !== 'waiting_for_slot') throw err;
    return waiting.startTask({ taskId });
  }
}
