// One export, workflowId = task id. Deterministic orchestration only: every side effect is an
// activity, and only keys, counts and checksums pass through history.
import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  ParentClosePolicy,
  proxyActivities,
  sleep,
  startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { FetchPagesOutput } from '../activities/fetch.js';
import type { Activities } from '../activities/index.js';
import type { CallbackEvent } from '../activities/notify.js';
import { callbackWorkflow } from './callback.js';
import { chunkRange, planLanes, type Lane } from '../lib/plan.js';

export interface ExportInput {
  taskId: string;
  /** Picks the renderer; absent in workflows started before Excel existed. */
  type?: 'csv' | 'excel';
  retry: { initialMs: number; maxAttempts: number };
  /** tasks.runs of this run (a retry is run 2, …): names the callback's webhook-id. */
  run?: number;
  /** Whether the task has a callback URL to notify when it ends. */
  callback?: boolean;
  /** FETCH_HEARTBEAT_TIMEOUT_MS; absent in workflows started before it existed. */
  heartbeatTimeoutMs?: number;
}

export interface ExportOutput {
  status: 'succeeded' | 'failed' | 'skipped' | 'cancelled';
  errorCode?: string;
}

const SOURCE_ERRORS_PERMANENT = ['source_bad_response', 'source_changed', 'template_invalid'];

export async function exportWorkflow(input: ExportInput): Promise<ExportOutput> {
  const { taskId } = input;
  const state = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    // The slot wait retries every couple of seconds for as long as it takes (unlimited attempts).
    retry: { initialInterval: '1 second', backoffCoefficient: 1.5, maximumInterval: '10 seconds' },
  });
  const source = proxyActivities<Activities>({
    startToCloseTimeout: '2 hours',
    // Short, so a killed worker's pages move to another worker within seconds.
    heartbeatTimeout: input.heartbeatTimeoutMs ?? 10_000,
    // On cancel, wait until fetches have really stopped, so nothing is staged after the cleanup.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: input.retry.initialMs,
      backoffCoefficient: 2,
      maximumAttempts: input.retry.maxAttempts,
      nonRetryableErrorTypes: SOURCE_ERRORS_PERMANENT,
    },
  });
  // A lane that stored pages before a transient error continues in a fresh activity (per-page
  // attempt budget, activities/fetch.ts); its retries start one step further along the backoff.
  const resume = proxyActivities<Activities>({
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: input.heartbeatTimeoutMs ?? 10_000,
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: {
      initialInterval: input.retry.initialMs * 2,
      backoffCoefficient: 2,
      maximumAttempts: input.retry.maxAttempts,
      nonRetryableErrorTypes: SOURCE_ERRORS_PERMANENT,
    },
  });
  const work = proxyActivities<Activities>({
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: '30 seconds',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
  });

  try {
    const { proceed } = await state.startTask({ taskId });
    if (!proceed) return { status: 'skipped' };
    await fetchAll(taskId, { source, resume, work }, input.retry);
    await state.setStage({ taskId, stage: 'rendering' });
    const { outputs } = await (input.type === 'excel' ? work.renderXlsx : work.renderCsv)({ taskId });
    await state.setStage({ taskId, stage: 'uploading' });
    const { files } = await work.publishFiles({ taskId, outputs });
    const { ok } = await state.completeTask({ taskId, files });
    if (!ok) {
      // Cancelled while publishing: the files of a cancelled task must not stay.
      await work.discardStaged({ taskId, files: true });
      return { status: 'cancelled' };
    }
    await notify(input, 'task.succeeded');
    return { status: 'succeeded' };
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(async () => {
        await work.discardStaged({ taskId, files: true });
        await state.markCancelled({ taskId });
      });
      throw err;
    }
    const { code, message } = describe(err);
    await work.discardStaged({ taskId });
    const { ok } = await state.failTask({ taskId, code, message });
    if (ok) await notify(input, 'task.failed');
    return { status: 'failed', errorCode: code };
  }
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

type Acts = ReturnType<typeof proxyActivities<Activities>>;

interface Proxies {
  source: Acts;
  resume: Acts;
  work: Acts;
}

/** The design's restart rule: a source that changes mid-export gets one fresh start, then fails. */
async function fetchAll(taskId: string, acts: Proxies, retry: ExportInput['retry']): Promise<void> {
  const { source, work } = acts;
  for (let attempt = 1; ; attempt++) {
    try {
      const { total, pageSize } = await source.probeSource({ taskId });
      await allOrNothing(planLanes(total, pageSize).map((lane) => () => fetchLane(taskId, lane, acts, retry)));
      await work.verifyStaged({ taskId });
      return;
    } catch (err) {
      const { code, message } = describe(err);
      if (code !== 'source_changed') throw err;
      if (attempt > 1) throw ApplicationFailure.create({ type: code, nonRetryable: true, message: `the source changed again after the export had restarted once: ${message}` });
      await work.discardStaged({ taskId });
    }
  }
}

/**
 * Runs the lanes together; the first failure cancels the others, and it is thrown only once all
 * have stopped, so the cleanup that follows never races a lane still writing pages.
 */
async function allOrNothing(jobs: Array<() => Promise<void>>): Promise<void> {
  const scope = new CancellationScope();
  let first: { err: unknown } | undefined;
  await scope.run(() =>
    Promise.allSettled(
      jobs.map((job) =>
        job().catch((err: unknown) => {
          if (!first) {
            first = { err };
            scope.cancel();
          }
        }),
      ),
    ),
  );
  if (first) throw first.err;
}

async function fetchLane(taskId: string, lane: Lane, { source, resume }: Proxies, retry: ExportInput['retry']): Promise<void> {
  const base = { taskId, lane: lane.lane, laneFromPage: lane.fromPage };
  for (const [chunkFrom, toPage] of chunkRange(lane.fromPage, lane.toPage)) {
    let out: FetchPagesOutput = await source.fetchPages({ ...base, fromPage: chunkFrom, toPage });
    while (out.nextPage !== undefined) {
      // The failed request was attempt 1 of that page; Retry-After, when given, sets the wait.
      await sleep(out.retryAfterMs ?? retry.initialMs);
      out = await resume.fetchPages({ ...base, fromPage: out.nextPage, toPage, failedAttempts: 1, maxAttempts: retry.maxAttempts });
    }
  }
}

function describe(err: unknown): { code: string; message: string } {
  let e: unknown = err;
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  if (e instanceof ApplicationFailure && e.type) return { code: e.type, message: e.message };
  return { code: 'internal_error', message: e instanceof Error ? e.message : String(e) };
}
