// One export, workflowId = task id. Deterministic orchestration only: every side effect is an
// activity, and only keys, counts and checksums pass through history.
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { chunkRange, planLanes, type Lane } from '../lib/plan.js';

export interface ExportInput {
  taskId: string;
  retry: { initialMs: number; maxAttempts: number };
}

export interface ExportOutput {
  status: 'succeeded' | 'failed' | 'skipped';
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
    heartbeatTimeout: '10 seconds',
    retry: {
      initialInterval: input.retry.initialMs,
      backoffCoefficient: 2,
      maximumAttempts: input.retry.maxAttempts,
      nonRetryableErrorTypes: SOURCE_ERRORS_PERMANENT,
    },
  });
  const work = proxyActivities<Activities>({
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: '30 seconds',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 5 },
  });

  const { proceed } = await state.startTask({ taskId });
  if (!proceed) return { status: 'skipped' };
  try {
    await fetchAll(taskId, source, work);
    await state.setStage({ taskId, stage: 'rendering' });
    const { outputs } = await work.renderCsv({ taskId });
    await state.setStage({ taskId, stage: 'uploading' });
    const { files } = await work.publishFiles({ taskId, outputs });
    await state.completeTask({ taskId, files });
    return { status: 'succeeded' };
  } catch (err) {
    const { code, message } = describe(err);
    await work.discardStaged({ taskId });
    await state.failTask({ taskId, code, message });
    return { status: 'failed', errorCode: code };
  }
}

type Acts = ReturnType<typeof proxyActivities<Activities>>;

/** The design's restart rule: a source that changes mid-export gets one fresh start, then fails. */
async function fetchAll(taskId: string, source: Acts, work: Acts): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { total, pageSize } = await source.probeSource({ taskId });
      await Promise.all(planLanes(total, pageSize).map((lane) => fetchLane(taskId, lane, source)));
      await work.verifyStaged({ taskId });
      return;
    } catch (err) {
      if (attempt > 1 || describe(err).code !== 'source_changed') throw err;
      await work.discardStaged({ taskId });
    }
  }
}

async function fetchLane(taskId: string, lane: Lane, source: Acts): Promise<void> {
  for (const [fromPage, toPage] of chunkRange(lane.fromPage, lane.toPage)) {
    await source.fetchPages({ taskId, lane: lane.lane, laneFromPage: lane.fromPage, fromPage, toPage });
  }
}

function describe(err: unknown): { code: string; message: string } {
  let e: unknown = err;
  while (e instanceof ActivityFailure && e.cause) e = e.cause;
  if (e instanceof ApplicationFailure && e.type) return { code: e.type, message: e.message };
  return { code: 'internal_error', message: e instanceof Error ? e.message : String(e) };
}
