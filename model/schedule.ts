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

/**
 * Why a schedule is paused: `failing` (it paused itself after pause_after_failures failed runs in a
 * row), `manual` (POST …/pause, or the Temporal UI), `source_host_not_allowed` (a run's submission
 * was refused because its source's host left the project's source_hosts), `refused` (a run's
 * submission was refused for another reason no retry mends: last_error says which).
 */
export const PAUSED_REASONS = ['failing', 'manual', 'source_host_not_allowed', 'refused'] as const;
export type PausedReason = (typeof PAUSED_REASONS)[number];

/** The last failed run of a schedule: its code and sentence; `task_id` null for a refused submission. */
export interface ScheduleLastError {
  code: string;
  message: string;
  task_id: string | null;
  /** The task's run that failed: with task_id, the key of the alert its pause sends (never shown). */
  run?: number;
  at: string;
}

/** The event a schedule's pause for failing sends to the project's alert_callback (and names its alert mail). */
export const SCHEDULE_PAUSED_EVENT = 'schedule.paused';

/**
 * The ids of one pause's alert, keyed by the failed task (and its run) that paused it: the same on
 * every attempt to start it, so Temporal (REJECT_DUPLICATE) starts each delivery once, and a
 * receiver de-duplicates the event by its webhook-id.
 */
export const scheduleAlertIds = (scheduleId: string, taskId: string, run: number) => ({
  callbackWorkflowId: `${scheduleId}.paused.${taskId}.${run}.callback`,
  emailWorkflowId: `${scheduleId}.paused.${taskId}.${run}.email`,
  webhookId: `msg_${scheduleId}_paused_${taskId}_${run}`,
});
