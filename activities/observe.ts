// What the end of an export run adds to the metrics (platform/metrics.ts): its status, its
// duration from start to end, the time in each stage as the workflow measured it, and for a
// succeeded export the rows and bytes it published.
import type { TaskRow } from '../db/schema.js';
import type { StageTiming } from '../model/activities.js';
import { metrics } from '../platform/metrics.js';

function observeStages(task: Pick<TaskRow, 'type'>, stages: StageTiming['stages']): void {
  for (const [stage, ms] of Object.entries(stages ?? {})) metrics.stageDuration.observe({ type: task.type, stage }, ms / 1000);
}

export function observeRun(task: TaskRow, status: 'succeeded' | 'failed' | 'cancelled' | 'paused', stages: StageTiming['stages']): void {
  const { type, projectId: project_id } = task;
  metrics.exportsFinished.inc({ project_id, type, status });
  if (task.startedAt) metrics.exportDuration.observe({ type, status }, ((task.finishedAt ?? new Date()).getTime() - task.startedAt.getTime()) / 1000);
  observeStages(task, stages);
  if (status !== 'succeeded') return;
  metrics.rowsExported.inc({ project_id, type }, task.totalRows ?? 0);
  metrics.bytesExported.inc({ project_id, type }, task.files.reduce((n, f) => n + f.bytes, 0));
}
