// One export, workflowId = task id. Deterministic orchestration only: every side effect is an
// activity, and only keys, counts and checksums pass through history.
import { CancellationScope, isCancellation, ParentClosePolicy, patched, proxyActivities, proxyLocalActivities, startChild } from '@temporalio/workflow';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities, CallbackEvent } from '../model/activities.js';
import { taskErrorCode } from '../model/errors.js';
import type { ExportType } from '../model/task.js';
import { PAGES_PER_ACTIVITY, PAGES_PER_CHUNK } from '../model/plan.js';
import { callbackWorkflow } from './callback.js';
import { describe, fetchAll } from './fetch-all.js';
import { PauseControl } from './pause.js';
import * as profiles from './profiles.js';
import { Visibility } from './visibility.js';

export interface ExportInput {
  taskId: string;
  /** Picks the renderer; absent in workflows started before Excel existed. */
  type?: ExportType;
  retry: profiles.RetrySettings;
  /** tasks.runs of this run (a retry is run 2, …): names the callback's webhook-id. */
  run?: number;
  /** Whether the task has a callback URL to notify when it ends. */
  callback?: boolean;
  /** FETCH_HEARTBEAT_TIMEOUT_MS; absent in workflows started before it existed. */
  heartbeatTimeoutMs?: number;
  /** A paused export resumed: its pages staged so far are kept, the rest fetched. */
  resume?: boolean;
}

export interface ExportOutput {
  /**
   * `failed`: only where dc-failed-status is unpatched (a history recorded without it) or the task
   * was cancelled as it failed; otherwise a failed task's run ends Failed. `queued`: a sync export
   * over the sync limit, back in its project's queue (workflows/sync-export.ts).
   */
  status: 'succeeded' | 'failed' | 'skipped' | 'cancelled' | 'paused' | 'queued';
  errorCode?: string;
}

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
 * A run that fails its task ends as Failed in Temporal (failure type = the task's error code), so
 * the UI's Status column and `ExecutionStatus = "Failed"` find it. Histories that failed a task
 * without this patch's marker completed with `{ status: 'failed' }` and replay so.
 */
export const FAILED_STATUS_PATCH = 'dc-failed-status';

export async function exportWorkflow(input: ExportInput): Promise<ExportOutput> {
  const { taskId } = input;
  const heartbeat = input.heartbeatTimeoutMs ?? 10_000;
  const state = proxyActivities<Activities>(profiles.taskState);
  // Patch retirement (these three and the one in endWithError): docs/adr/0024-workflow-patches-and-retirement.md
  const quick = patched(LEAN_STEPS_PATCH) ? proxyLocalActivities<Activities>(profiles.localTaskState) : undefined;
  const chunkPages = patched(LANE_CHUNKS_PATCH) ? PAGES_PER_CHUNK : PAGES_PER_ACTIVITY;
  const steps = quick ?? state;
  const work = proxyActivities<Activities>(profiles.work);
  const publisher = quick && patched(LEAN_PUBLISH_PATCH) ? proxyLocalActivities<Activities>(profiles.localPublish) : work;
  const source = proxyActivities<Activities>(profiles.source(input.retry, heartbeat));
  const resume = proxyActivities<Activities>(profiles.source(input.retry, heartbeat, 1));
  const pause = new PauseControl();
  const ui = new Visibility();
  const stage = async (s: 'rendering' | 'uploading') => {
    await steps.setStage({ taskId, stage: s });
    ui.setStage(s);
  };

  try {
    const { proceed, status } = await start(taskId, state, quick);
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
    const { outputs } = await (input.type === 'excel' ? work.renderXlsx : work.renderCsv)({ taskId });
    await stage('uploading');
    return await publishAndComplete(input, { state: steps, work: publisher }, ui, outputs);
  } catch (err) {
    return await endWithError(err, input, { state, work }, ui);
  }
}

/** queued → running: locally in a lean run, unless the task must wait for a slot (then as an activity). */
async function start(taskId: string, state: Activities, quick: Activities | undefined): ReturnType<Activities['startTask']> {
  if (!quick) return state.startTask({ taskId });
  try {
    return await quick.startTask({ taskId });
  } catch (err) {
    if (describe(err).code !== 'waiting_for_slot') throw err;
    return state.startTask({ taskId });
  }
}

/** The activities the last steps use: the export's proxies, or the sync export's local ones. */
interface EndActivities {
  state: Pick<Activities, 'completeTask' | 'markCancelled' | 'failTask'>;
  work: Pick<Activities, 'publishFiles' | 'discardStaged'>;
}

/** Publish the rendered files and complete the task (shared with workflows/sync-export.ts). */
export async function publishAndComplete(input: ExportInput, { state, work }: EndActivities, ui: Visibility, outputs: Parameters<Activities['publishFiles']>[0]['outputs']): Promise<ExportOutput> {
  const { taskId } = input;
  const { files } = await work.publishFiles({ taskId, outputs });
  const { ok } = await state.completeTask({ taskId, files, stages: ui.timings() });
  if (!ok) {
    // Cancelled while publishing: the files of a cancelled task must not stay.
    await work.discardStaged({ taskId, files: true });
    ui.setStatus('cancelled');
    return { status: 'cancelled' };
  }
  ui.setStatus('succeeded');
  await notify(input, 'task.succeeded');
  return { status: 'succeeded' };
}

/** A run that threw: a cancellation cleans up and is rethrown; anything else fails the task. */
export async function endWithError(err: unknown, input: ExportInput, { state, work }: EndActivities, ui: Visibility): Promise<ExportOutput> {
  const { taskId } = input;
  if (isCancellation(err)) {
    await CancellationScope.nonCancellable(async () => {
      await work.discardStaged({ taskId, files: true });
      await state.markCancelled({ taskId, stages: ui.timings() });
    });
    ui.setStatus('cancelled');
    throw err;
  }
  const failure = describe(err);
  // Only the vocabulary's codes reach the task: a raw Error's type ("Error"), a timeout, a failure
  // type from an older worker all become internal_error (the message still says what happened).
  const code = taskErrorCode(failure.code);
  const message = code === failure.code ? failure.message : `${failure.code}: ${failure.message}`;
  // files too: a step after publishing may have failed, and a failed task keeps no files.
  await work.discardStaged({ taskId, files: true });
  const { ok } = await state.failTask({ taskId, code, message, stages: ui.timings() });
  // Not ok: the task had already ended, cancelled through the API.
  ui.setStatus(ok ? 'failed' : 'cancelled');
  if (!ok) return { status: 'failed', errorCode: code };
  await notify(input, 'task.failed');
  // Last, once the task row and its callback say so: nothing after this runs. Non-retryable, and
  // runs start with no retry policy (domain/tasks/admission/run.ts): Temporal never runs the export again.
  // Patch retirement: docs/adr/0024-workflow-patches-and-retirement.md
  if (patched(FAILED_STATUS_PATCH)) throw ApplicationFailure.create({ type: code, message, nonRetryable: true });
  return { status: 'failed', errorCode: code };
}

/** The callback is its own workflow, abandoned by this one: the task's status is already final. */
async function notify(input: ExportInput, event: CallbackEvent): Promise<void> {
  if (!input.callback) return;
  const run = input.run ?? 1;
  try {
    await startChild(callbackWorkflow, {
      workflowId: `${input.taskId}.callback.${run}`,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [{ taskId: input.taskId, run, event, webhookId: `msg_${input.taskId}_${run}` }],
    });
  } catch (err) {
    // Already started by an earlier attempt of this step: that delivery stands.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
