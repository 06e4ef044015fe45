// The schedule object the API answers with.
import type { ScheduleRow } from '../../db/schema.js';

/** What Temporal says of the schedule now (schedules.ts liveState), when it was asked. */
export interface LiveState {
  nextRuns: Date[];
  paused: boolean;
  note: string | null;
}

export function scheduleJson(s: ScheduleRow, live?: LiveState | null) {
  // Temporal's state is what fires: an operator may have paused it in the Temporal UI.
  const paused = live?.paused ?? s.paused;
  return {
    schedule_id: s.id,
    project_id: s.projectId,
    cron: s.cron,
    every: s.every,
    timezone: s.timezone,
    overlap: s.overlap,
    pause_after_failures: s.pauseAfterFailures,
    paused,
    note: paused ? (s.note ?? live?.note ?? null) : null,
    // The task body each run submits, placeholders as written.
    task: s.body,
    last_run: s.lastRunAt ? { at: s.lastRunAt.toISOString(), outcome: s.lastOutcome, task_id: s.lastTaskId } : null,
    ...(live ? { next_runs: live.nextRuns.map((d) => d.toISOString()) } : {}),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}
