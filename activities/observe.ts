// What the end of an export run adds to the metrics (platform/metrics.ts): its status, its
// duration from start to end, the time in each stage as the workflow measured it, and for a
// succeeded export the rows and bytes it published.
import { Context } from '@temporalio/activity';
import type { TaskRow } from '../db/schema.js';
import type { StageTiming } from '../model/activities.js';
import { metrics } from '../platform/metrics.js';

function observeStages(task: Pick<TaskRow, 'type'>, stages: StageTiming['stages']): void {
  for (const [stage, ms] of Object.entries(stages ?? {})) metrics.stageDuration.observe({ type: task.type, stage }, ms / 1000);
}

export function observeRun(task: TaskRow, status: 'succeeded' | 'failed' | 'cancelled' | 'paused', stages: StageTiming['stages']): void {
  const { type, projectId: project_id } = task;
  const ms = task.startedAt ? (task.finishedAt ?? new Date()).getTime() - task.startedAt.getTime() : undefined;
  metrics.exportsFinished.inc({ project_id, type, status });
  if (ms !== undefined) metrics.exportDuration.observe({ type, status }, ms / 1000);
  observeStages(task, stages);
  const rows = task.totalRows ?? 0;
  const bytes = task.files.reduce((n, f) => n + f.bytes, 0);
  if (status === 'succeeded') {
    metrics.rowsExported.inc({ project_id, type }, rows);
    metrics.bytesExported.inc({ project_id, type }, bytes);
  }
  // Through the activity's logger: the line carries task_id and activity (platform/temporal-log.ts).
  Context.current().log.info(`export ${status}`, {
    project_id,
    operator_id: task.operatorId,
    status,
    duration_ms: ms,
    stages_ms: stages,
    ...(status === 'succeeded' ? { rows, bytes, files: task.files.length } : {}),
    ...(task.errorCode ? { error_code: task.errorCode } : {}),
  });
}
