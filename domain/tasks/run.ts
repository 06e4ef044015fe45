// Starting a task's workflow run. Started by function reference, so the arguments are type-checked
// against the workflow's input.
import type { Client } from '@temporalio/client';
import type { TaskRow } from '../../db/schema.js';
import type { Config } from '../../platform/config.js';
import { exportWorkflow, type ExportInput } from '../../workflows/export.js';

export interface RunDeps {
  temporal: Client;
  config: Config;
}

/** Starts a run of the export workflow for an admitted task (a retry or a resume is a new run under the same id). */
export async function startRun(deps: RunDeps, task: TaskRow): Promise<void> {
  const input: ExportInput = {
    taskId: task.id,
    type: task.type,
    retry: { initialMs: deps.config.SOURCE_RETRY_INITIAL_MS, maxAttempts: deps.config.SOURCE_RETRY_MAX_ATTEMPTS },
    run: task.runs,
    callback: task.callback !== null,
    heartbeatTimeoutMs: deps.config.FETCH_HEARTBEAT_TIMEOUT_MS,
    // A paused task keeps the probe's totals and its staged pieces: its next run continues from them.
    ...(task.totalRows !== null ? { resume: true } : {}),
  };
  await deps.temporal.workflow.start(exportWorkflow, {
    workflowId: task.id,
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [input],
    // Starting twice (two admitters, a sweep after a crash) attaches to the run already there.
    workflowIdConflictPolicy: 'USE_EXISTING',
    // 1 runs first; within a priority the server shares the task queue fairly between projects
    // (matching.enableFairness, docs/operations.md).
    priority: { priorityKey: task.priority, fairnessKey: task.projectId },
  });
}
