// The steps that end an export run (the export's and the sync export's): publish, deliver, complete,
// or fail / cancel, and the abandoned children that tell of the end (the callback, the e-mails).
import { CancellationScope, isCancellation, log, ParentClosePolicy, startChild } from '@temporalio/workflow';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities, CallbackEvent } from '../model/activities.js';
import { type TaskErrorCode, taskErrorCode } from '../model/errors.js';
import { callbackWorkflowId, emailWorkflowId, webhookIdOf } from '../model/task.js';
import { callbackWorkflow } from './callback.js';
import { emailWorkflow } from './email.js';
import type { ExportInput, ExportOutput } from './export-io.js';
import { describe } from './fetch-all.js';
import type { Visibility } from './visibility.js';

/** The activities the last steps use: the export's proxies, or the sync export's local ones. */
export interface EndActivities {
  state: Pick<Activities, 'setStage' | 'completeTask' | 'failTask'>;
  work: Pick<Activities, 'publishFiles' | 'discardStaged'>;
  /** Absent in the sync export, which delivers nowhere. */
  deliver?: Pick<Activities, 'deliverFiles'>;
}

/** The activities that record a failed or cancelled run's end. */
export interface ErrorEndActivities {
  state: Pick<Activities, 'failTask' | 'markCancelled'>;
  work: Pick<Activities, 'discardStaged'>;
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
 */
async function deliverFiles(input: ExportInput, { state, work, deliver }: EndActivities, ui: Visibility, files: Published): Promise<{ files: Published } | ExportOutput> {
  if (!input.destination || !deliver) return { files };
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
 * Error's type ("Error"), a timeout, any other failure type all become internal_error,
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
export async function endWithError(err: unknown, input: ExportInput, { state, work }: ErrorEndActivities, ui: Visibility): Promise<ExportOutput> {
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
  // runs start with no retry policy (domain/tasks/admission/run.ts): Temporal never runs the export
  // again. Ending Failed, with the task's code as the failure type, lets the Temporal UI's Status
  // column and `ExecutionStatus = "Failed"` find it.
  throw ApplicationFailure.create({ type: code, message, nonRetryable: true });
}

/**
 * A step recording the task's end; one refused past its bounded retries (workflows/profiles.ts)
 * ends the run with `ending()` (the task's failure, or the cancellation) instead of failing it with
 * the step's error: the task row, still `running`, is ended by the reconciler (domain/tasks/reconcile.ts).
 */
async function unrecorded<T>(taskId: string, step: () => Promise<T>, ending: () => unknown): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.error("the task's end could not be recorded: the run ends, and the reconciler ends the task", { taskId, error: describe(err).message });
    throw ending();
  }
}

/**
 * The run's objects removed; a store down through all of discardStaged's retries leaves them
 * behind (a warning in the worker's log) rather than the task `running` for good.
 */
async function discard(work: ErrorEndActivities['work'], taskId: string): Promise<void> {
  try {
    await work.discardStaged({ taskId, files: true });
  } catch (err) {
    if (isCancellation(err)) throw err;
    log.warn('the store kept refusing to discard the run\'s objects: they are left behind', { taskId, error: describe(err).message });
  }
}

/**
 * The callback and the e-mails are workflows of their own, abandoned by this one: the task's status
 * is already final.
 */
async function notify(input: ExportInput, event: CallbackEvent): Promise<void> {
  const { run } = input;
  // A sync run's children go to the deployment's queue, not the API processes' sync queue.
  const onQueue = input.exportQueue ? { taskQueue: input.exportQueue } : {};
  if (input.callback) {
    await abandonedChild(() =>
      startChild(callbackWorkflow, {
        workflowId: callbackWorkflowId(input.taskId, run),
        ...onQueue,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        args: [{ taskId: input.taskId, run, event, webhookId: webhookIdOf(input.taskId, run) }],
      }),
    );
  }
  const recipients = input.emails;
  if (recipients) {
    await abandonedChild(() =>
      startChild(emailWorkflow, {
        workflowId: emailWorkflowId(input.taskId, run),
        ...onQueue,
        parentClosePolicy: ParentClosePolicy.ABANDON,
        args: [{ taskId: input.taskId, run, event, recipients }],
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
