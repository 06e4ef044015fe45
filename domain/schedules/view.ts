// The schedule object the API answers with.
import type { ScheduleRow, scheduleBackfills } from '../../db/schema.js';

/** A backfill's range and how many of its runs have made their task (backfill.ts latestBackfills). */
export type BackfillProgress = Pick<typeof scheduleBackfills.$inferSelect, 'scheduleId' | 'startAt' | 'endAt' | 'done' | 'intervals' | 'createdAt'>;

/** What Temporal says of the schedule now (schedules.ts liveState), when it was asked. */
export interface LiveState {
  nextRuns: Date[];
  paused: boolean;
  note: string | null;
}

export function scheduleJson(s: ScheduleRow, live?: LiveState | null, backfill?: BackfillProgress | null) {
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
    // Paused in the Temporal UI (or before reasons were kept): someone paused it by hand.
    paused_reason: paused ? (s.paused ? (s.pausedReason ?? 'manual') : 'manual') : null,
    last_error: s.lastError ? { code: s.lastError.code, message: s.lastError.message, task_id: s.lastError.task_id, at: s.lastError.at } : null,
    consecutive_failures: s.consecutiveFailures,
    // The task body each run submits, placeholders as written.
    task: s.body,
    last_run: s.lastRunAt ? { at: s.lastRunAt.toISOString(), outcome: s.lastOutcome, task_id: s.lastTaskId } : null,
    backfill: backfill ? backfillJson(backfill) : null,
    ...(live ? { next_runs: live.nextRuns.map((d) => d.toISOString()) } : {}),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

function backfillJson(b: BackfillProgress) {
  // A run of the calendar due inside the range counts as one of it too: never shown past the total.
  return { start: b.startAt.toISOString(), end: b.endAt.toISOString(), done: Math.min(b.done, b.intervals), total: b.intervals, created_at: b.createdAt.toISOString() };
}
