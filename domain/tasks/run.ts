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

/** Starts a run of the export workflow for the task (a retry starts a new run under the same id). */
export async function startRun(deps: RunDeps, task: TaskRow): Promise<void> {
  const input: ExportInput = {
    taskId: task.id,
    type: task.type,
    retry: { initialMs: deps.config.SOURCE_RETRY_INITIAL_MS, maxAttempts: deps.config.SOURCE_RETRY_MAX_ATTEMPTS },
    run: task.runs,
    callback: task.callback !== null,
    heartbeatTimeoutMs: deps.config.FETCH_HEARTBEAT_TIMEOUT_MS,
  };
  await deps.temporal.workflow.start(exportWorkflow, {
    workflowId: task.id,
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [input],
    // 1 runs first; the server orders queued work by this key where priority is enabled.
    priority: { priorityKey: task.priority },
  });
}
