// Schedules' vocabulary, shared by the database schema, the API and the scheduled-run workflow.

/** skip: a run is skipped while the schedule's previous task is queued, running or paused; allow_all: never. */
export const OVERLAP_POLICIES = ['skip', 'allow_all'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** What one run of a schedule did. */
export const RUN_OUTCOMES = ['submitted', 'skipped', 'refused', 'gone'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export interface ScheduledRunInput {
  scheduleId: string;
}

export interface SubmitRunInput {
  scheduleId: string;
  /** The time the run was due (the schedule's action time), ISO 8601: its date fills the placeholders, and it ends the window. */
  scheduledAt: string;
  /** The run's run id: unique per run, the same for every attempt of its activity. */
  run: string;
}

export interface SubmitRunOutput {
  outcome: RunOutcome;
  taskId?: string;
  reason?: string;
}
