// The steps that end an export run (the export's and the sync export's): publish, deliver, complete,
// or fail / cancel, and the abandoned children that tell of the end (the callback, the e-mails).
import { CancellationScope, isCancellation, log, ParentClosePolicy, patched, startChild } from '@temporalio/workflow';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities, CallbackEvent } from '../model/activities.js';
import { type TaskErrorCode, taskErrorCode } from '../model/errors.js';
import { callbackWorkflowId, emailWorkflowId, webhookIdOf } from '../model/task.js';
import { callbackWorkflow } from './callback.js';
import { emailWorkflow } from './email.js';
import type { ExportInput, ExportOutput } from './export-io.js';
import { describe } from './fetch-all.js';
import type { Visibility } from './visibility.js';

/**
 * A run that fails its task ends as Failed in Temporal (failure type = the task's error code), so
 * the UI's Status column and `ExecutionStatus = "Failed"` find it. Histories that failed a task
 * without this patch's marker completed with `{ status: 'failed' }` and replay so.
 */
export const FAILED_STATUS_PATCH = 'dc-failed-status';
/**
 * Runs started after this patch deliver a task with a destination before completing it (the
 * `delivering` stage, docs/destinations.md). Only such runs ask, so every other history replays
 * without the marker.
 */
export const DELIVER_PATCH = 'dc-deliver';
/** Runs started after this patch mail the task's notify_email when it ends (workflows/email.ts). */
export const EMAIL_PATCH = 'dc-email';
/**
 * Runs started after this patch end their task failed (or cancelled) even when the store stays
 * down through all of discardStaged's retries: the run's objects are left behind (a warning in the
 * worker's log) instead of the task staying `running` for good.
 */
export const DISCARD_BEST_EFFORT_PATCH = 'dc-discard-best-effort';

/**
 * Runs started after this patch end even when their task's end cannot be recorded (failTask or
 * markCancelled refused past their bounded retries, workflows/profiles.ts): a failure ends the run
 * Failed with the task's own code and message, a cancel ends it Cancelled; the task row, still
 * `running`, is ended by the reconciler from that (domain/tasks/reconcile.ts). Before, the step
 * was retried for ever and the run never ended.
 */
export const UNRECORDED_END_PATCH = 'dc-unrecorded-end';

/** The activities the last steps use: the export's proxies, or the sync export's local ones. */
export interface EndActivities {
  state: Pick<Activities, 'completeTask' | 'markCancelled' | 'failTask' | 'setStage'>;
  work: Pick<Activities, 'publishFiles' | 'discardStaged'>;
  /** Present when the task has a destination (the sync export has none). */
  deliver?: Pick<Activities, 'deliverFiles'>;
}

/** Publish the rendered files and complete the task (shared with workflows/sync-export.ts). */
export async function publishAndComplete(input: ExportInput, acts: EndActivities, ui: Visibility, outputs: Parameters<Activities['publishFiles']>[0]['outputs']): Promise<ExportOutput> {
  const { taskId } = input;
  const { state, work } = acts;
  const published = await work.publishFiles({ taskId, outputs });
  const delivered = await deliverFiles(input, acts, ui, published.files);
  if ('status' in delivered) return delivered;
  const { files } = delivered;
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

type Published = Awaited<ReturnType<Activities['publishFiles']>>['files'];

/**
 * The files into the task's destination, manifest last; the task succeeds only after. A delivery
 * that fails for good fails the task but keeps its files downloadable until they expire.
 * Patch retirement: docs/adr/0024-workflow-patches-and-retirement.md
 */
async function deliverFiles(input: ExportInput, { state, work, deliver }: EndActivities, ui: Visibility, files: Published): Promise<{ files: Published } | ExportOutput> {
  if (!input.destination || !deliver || !patched(DELIVER_PATCH)) return { files };
  const { taskId } = input;
  await state.setStage({ taskId, stage: 'delivering' });
  ui.setStage('delivering');
  try {
    return await deliver.deliverFiles({ taskId, files });
  } catch (err) {
    if (isCancellation(err)) throw err;
    const { code, message } = taskError(err);
    const { ok } = await state.failTask({ taskId, code, message, stages: ui.timings(), files });
    if (!ok) {
      // Cancelled meanwhile: a cancelled task keeps no files.
      await work.discardStaged({ taskId, files: true });
      ui.setStatus('cancelled');
      return { status: 'cancelled' };
    }
    ui.setStatus('failed');
    await notify(input, 'task.failed');
    throw new TaskFailed(ApplicationFailure.create({ type: code, message, nonRetryable: true }));
  }
}

/**
 * The code and message a failure gives its task. Only the vocabulary's codes reach the task: a raw
 * Error's type ("Error"), a timeout, a failure type from an older worker all become internal_error,
 * and the message then starts with the original type, so it still says what happened.
 */
function taskError(err: unknown): { code: TaskErrorCode; message: string } {
  const failure = describe(err);
  const code = taskErrorCode(failure.code);
  return { code, message: code === failure.code ? failure.message : `${failure.code}: ${failure.message}` };
}

/** The task is failed and told so already: the run ends Failed with this, nothing cleans up. */
export class TaskFailed extends Error {
  constructor(readonly failure: ApplicationFailure) {
    super(failure.message);
  }
}

/** A run that threw: a cancellation cleans up and is rethrown; anything else fails the task. */
export async function endWithError(err: unknown, input: ExportInput, { state, work }: EndActivities, ui: Visibility): Promise<ExportOutput> {
  const { taskId } = input;
  if (isCancellation(err)) {
    await CancellationScope.nonCancellable(async () => {
      await discard(work, taskId);
      await unrecorded(
        taskId,
        () => state.markCancelled({ taskId, stages: ui.timings() }),
        () => {
          ui.setStatus('cancelled');
          return err;
        },
      );
    });
    ui.setStatus('cancelled');
    throw err;
  }
  const { code, message } = taskError(err);
  // files too: a step after publishing may have failed, and a failed task keeps no files.
  await discard(work, taskId);
  const { ok } = await unrecorded(
    taskId,
    () => state.failTask({ taskId, code, message, stages: ui.timings() }),
    () => {
      ui.setStatus('failed');
      return ApplicationFailure.create({ type: code, message, nonRetryable: true });
    },
  );
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

/**
 * A step recording the task's end; where patched, one refused past its retries ends the run with
 * `ending()` (the task's failure, or the cancellation) instead of failing it with the step's error.
 * Patch retirement: docs/adr/0024-workflow-patches-and-retirement.md
 */
async function unrecorded<T>(taskId: string, step: () => Promise<T>, ending: () => unknown): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (isCancellation(err) || !patched(UNRECORDED_END_PATCH)) throw err;
    log.error("the task's end could not be recorded: the run ends, and the reconciler ends the task", { taskId, error: describe(err).message });
    throw ending();
  }
}

/** The run's objects removed; where patched, a store down past the retries leaves them, not the task. */
async function discard(work: EndActivities['work'], taskId: string): Promise<void> {
  // Patch retirement: docs/adr/0024-workflow-patches-and-retirement.md
  if (!patched(DISCARD_BEST_EFFORT_PATCH)) return void (await work.discardStaged({ taskId, files: true }));
  try {
    await work.discardStaged({ taskId, files: true });
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('the store kept refusing to discard the run\'s objects: they are left behind', { taskId, error: describe(err).message });
  }
}

/**
 * The callback and the e-mails are workflows of their own, abandoned by this one: the task's status
 * is already final. The e-mails only in runs that have the patch's marker (ADR 0024): a history
 * recorded before them has no such child and replays without it.
 */
async function notify(input: ExportInput, event: CallbackEvent): Promise<void> {
  const run = input.run ?? 1;
  if (input.callback) {
    await abandonedChild(() =>
      startChild(callbackWorkflow, {
        workflowId: callbackWorkflowId(input.taskId, run),
        parentClosePolicy: ParentClosePolicy.ABANDON,
        args: [{ taskId: input.taskId, run, event, webhookId: webhookIdOf(input.taskId, run) }],
      }),
    );
  }
  if (input.emails && patched(EMAIL_PATCH)) {
    await abandonedChild(() =>
      startChild(emailWorkflow, {
        workflowId: emailWorkflowId(input.taskId, run),
        parentClosePolicy: ParentClosePolicy.ABANDON,
        args: [{ taskId: input.taskId, run, event, recipients: input.emails! }],
      }),
    );
  }
}

async function abandonedChild(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (err) {
    // Already started by an earlier attempt of this step: that delivery stands.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
