// What a schedule's run does (the scheduledRunWorkflow's activity) and what happens when its task
// ends (ADR 0014). A run submits an ordinary task through submitTask, so admission, de-duplication,
// the submit quota and allow-lists apply; an Idempotency-Key per run makes a retried run find
// the task it made. A body with {{interval_start}} / {{interval_end}} gets the run's window (ADR 0034). A schedule whose tasks fail `pause_after_failures` times in a row is paused,
// and its note, paused_reason and last_error say why, and its alert goes out once (ADR 0048); a run
// whose submission is refused (a host no longer allowed) pauses it too, bar a quota reached, which
// refuses the run alone (the quota resets on its own). A backfill's runs count its progress.
import { and, desc, eq, gte, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import { type ProjectRow, scheduleBackfills, type ScheduleRow, schedules, type TaskRow, tasks } from '../../db/schema.js';
import { taskErrorCode } from '../../model/errors.js';
import type { RunOutcome, ScheduleLastError, SubmitRunInput, SubmitRunOutput } from '../../model/schedule.js';
import { storableText } from '../../model/storable.js';
import { taskErrorSentence } from '../callbacks/email-text.js';
import { ACTIVE_STATUSES } from '../../model/task.js';
import { DomainError } from '../errors.js';
import { getProject } from '../projects/projects.js';
import { Admission, startInline } from '../tasks/admission/index.js';
import { submitTask, type SubmitDeps, type SubmitInput } from '../tasks/submit.js';
import { fillBody, usesWindow, type Window } from './placeholders.js';
import { alertPaused } from './alerts.js';
import { getSchedule, pauseSchedule, type ScheduleDeps } from './schedules.js';
import { windowOf } from './windows.js';

export type RunDeps = SubmitDeps & ScheduleDeps;

// Per run, not per due time: two runs due in the same millisecond (a trigger meeting a due run) are
// two runs, one of which the overlap rule skips, and a backfill's run of a time that ran before
// (the same workflow id, a new execution) makes a task of its own. `run` is the execution's run id.
const runKey = (scheduleId: string, run: string) => `schedule:${scheduleId}:${run}`;

/** Longer than a submission takes; a run that died holding the lease blocks the next for this long. */
const LEASE_SECONDS = 30;

/**
 * Runs of one schedule submit one at a time, so that the overlap check and the submission are one
 * step: Temporal starts every due or triggered run at once (ADR 0014). A conditional UPDATE of the
 * row, not a lock, so it holds across processes and on PGlite's single connection alike.
 */
async function lease(deps: RunDeps, id: string): Promise<boolean> {
  const free = or(isNull(schedules.runLeaseUntil), lt(schedules.runLeaseUntil, sql`now()`));
  const [won] = await deps.db
    .update(schedules)
    .set({ runLeaseUntil: sql`now() + ${LEASE_SECONDS} * interval '1 second'` })
    .where(and(eq(schedules.id, id), free))
    .returning({ id: schedules.id });
  return won !== undefined;
}

const release = (deps: RunDeps, id: string) => deps.db.update(schedules).set({ runLeaseUntil: null }).where(eq(schedules.id, id));

async function record(deps: RunDeps, id: string, outcome: RunOutcome, taskId: string | null): Promise<void> {
  const now = new Date();
  await deps.db.update(schedules).set({ lastRunAt: now, lastOutcome: outcome, lastTaskId: taskId, updatedAt: now }).where(eq(schedules.id, id));
}

export async function submitRun(deps: RunDeps, { scheduleId, scheduledAt, run }: SubmitRunInput): Promise<SubmitRunOutput> {
  const schedule = await getSchedule(deps.db, scheduleId);
  const project = schedule && (await getProject(deps.db, schedule.projectId));
  if (!schedule || !project) {
    // Deleted while this run was on its way: a Temporal Schedule left behind stops here.
    await deps.temporal.schedule.getHandle(scheduleId).delete().catch(() => {});
    return { outcome: 'gone' };
  }
  // Asked before the lease, which it does not need (it depends only on the schedule and the due
  // time): Temporal's answer, a few calls perhaps, is not waited for while the lease holds.
  const window = await runWindow(deps, schedule, new Date(scheduledAt));
  if (!(await lease(deps, scheduleId))) throw DomainError.transient('conflict', 'another run of this schedule is submitting its task', 1000);
  try {
    return await submitLeased(deps, schedule, project, scheduledAt, window, run);
  } finally {
    await release(deps, scheduleId);
  }
}

async function submitLeased(deps: RunDeps, schedule: ScheduleRow, project: ProjectRow, scheduledAt: string, window: Window | undefined, run: string): Promise<SubmitRunOutput> {
  const scheduleId = schedule.id;
  const key = runKey(scheduleId, run);
  const due = new Date(scheduledAt);
  const backfill = await backfillOf(deps, scheduleId, due);
  const counted = async <T>(out: T): Promise<T> => {
    if (backfill) await countBackfillRun(deps, backfill, run);
    return out;
  };
  const [mine] = await deps.db.select({ id: tasks.id }).from(tasks).where(and(eq(tasks.projectId, project.id), eq(tasks.idempotencyKey, key)));
  if (mine) return counted({ outcome: 'submitted', taskId: mine.id });
  // A backfill's runs are asked for one by one: none is skipped for the task of the one before.
  if (schedule.overlap === 'skip' && !backfill) {
    const [live] = await deps.db
      .select({ id: tasks.id })
      .from(tasks)
      .where(and(eq(tasks.projectId, project.id), eq(tasks.scheduleId, scheduleId), inArray(tasks.status, [...ACTIVE_STATUSES])))
      .limit(1);
    if (live) {
      await record(deps, scheduleId, 'skipped', live.id);
      return { outcome: 'skipped', taskId: live.id, reason: `task ${live.id} of the previous run has not ended` };
    }
  }
  const body = fillBody(schedule.body as unknown as SubmitInput, due, schedule.timezone, window);
  try {
    const admission = new Admission(deps);
    const { task } = await submitTask(admission, project, body, key, startInline(admission, scheduleId));
    await record(deps, scheduleId, 'submitted', task.id);
    return await counted({ outcome: 'submitted', taskId: task.id });
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    // To be tried again later (Temporal retries the activity): a full submit quota, Temporal away.
    if (err.code === 'rate_limited' || err.code === 'temporal_unavailable') throw DomainError.transient(err.code, err.message, (err.retryAfter ?? 5) * 1000);
    // Refused until the quota resets (docs/usage.md#quotas): this run is not made, the schedule
    // stays active, and its runs make tasks again once the month turns or files expire.
    if (err.code === 'quota_exceeded') {
      await record(deps, scheduleId, 'refused', null);
      return counted({ outcome: 'refused', reason: `${err.code}: ${err.message}` });
    }
    // Refused for good (the body no longer passes the project's allow-lists): every later run would be too.
    const reason = `${err.code}: ${err.message}`;
    await record(deps, scheduleId, 'refused', null);
    const lastError = { code: err.code, message: storableText(err.message, ERROR_MESSAGE_MAX), task_id: null, at: new Date().toISOString() };
    const cause = { reason: err.code === 'source_host_not_allowed' ? ('source_host_not_allowed' as const) : ('refused' as const), lastError };
    await pauseSchedule(deps, scheduleId, `paused: the run due ${scheduledAt} was refused (${reason})`, cause);
    return counted({ outcome: 'refused', reason });
  }
}

/** The backfill (backfill.ts) that asked for a run due at `due`, the latest if several did; undefined for a run of the calendar. */
async function backfillOf(deps: RunDeps, scheduleId: string, due: Date): Promise<string | undefined> {
  const [hit] = await deps.db
    .select({ id: scheduleBackfills.id })
    .from(scheduleBackfills)
    .where(and(eq(scheduleBackfills.scheduleId, scheduleId), lt(scheduleBackfills.startAt, due), gte(scheduleBackfills.endAt, due)))
    .orderBy(desc(scheduleBackfills.createdAt))
    .limit(1);
  return hit?.id;
}

/**
 * One more of the backfill's runs has made its task (or was refused): its progress. Temporal starts
 * a backfill's runs one after another (BUFFER_ALL), so only the last counted run can come again
 * (a retried activity): counted once by its run id.
 */
async function countBackfillRun(deps: RunDeps, backfillId: string, run: string): Promise<void> {
  await deps.db
    .update(scheduleBackfills)
    .set({ done: sql`${scheduleBackfills.done} + 1`, lastRunId: run })
    .where(and(eq(scheduleBackfills.id, backfillId), or(isNull(scheduleBackfills.lastRunId), ne(scheduleBackfills.lastRunId, run))));
}

/** The run's window (windows.ts), asked of Temporal only when the body has a placeholder for it. */
async function runWindow(deps: RunDeps, schedule: ScheduleRow, due: Date): Promise<Window | undefined> {
  if (!usesWindow(schedule.body as unknown as SubmitInput)) return undefined;
  try {
    return await windowOf(deps, schedule.id, due, schedule.createdAt);
  } catch (err) {
    throw DomainError.transient('temporal_unavailable', `Temporal did not answer the schedule's due times: ${String(err)}`, 5000);
  }
}

/**
 * The schedule's failure streak, once one of its tasks has ended: its count and last error kept on the
 * row, and at pause_after_failures the schedule paused and its alert sent (alerts.ts). Read from the
 * tasks, so a retried activity counts nothing twice. On a schedule paused for failing whose alert
 * has not started (a worker died between the two), any of its runs' ends starts it.
 */
export async function noteRunEnded(deps: ScheduleDeps, task: TaskRow): Promise<void> {
  if (!task.scheduleId || (task.status !== 'failed' && task.status !== 'succeeded')) return;
  const schedule = await getSchedule(deps.db, task.scheduleId);
  if (!schedule) return;
  if (schedule.paused) {
    if (schedule.pausedReason === 'failing' && !schedule.alertedAt && schedule.lastError) await alertPaused(deps, schedule, schedule.lastError, schedule.consecutiveFailures);
    return;
  }
  if (task.status === 'succeeded') return streakEnded(deps, schedule);
  await countFailure(deps, schedule);
}

/** A success ends the streak; no read of the schedule's tasks (the next failure recounts them anyway). */
async function streakEnded(deps: ScheduleDeps, schedule: ScheduleRow): Promise<void> {
  if (schedule.consecutiveFailures === 0) return;
  await deps.db.update(schedules).set({ consecutiveFailures: 0 }).where(and(eq(schedules.id, schedule.id), eq(schedules.paused, false)));
}

/** The streak recounted from the tasks after a failure; at pause_after_failures, the pause and its alert. */
async function countFailure(deps: ScheduleDeps, schedule: ScheduleRow): Promise<void> {
  const recent = await recentOutcomes(deps, schedule);
  const ok = recent.findIndex((t) => t.status !== 'failed');
  const failures = ok === -1 ? recent.length : ok;
  const last = recent[0]?.status === 'failed' ? recent[0] : undefined;
  const lastError = last && errorOf(last);
  await deps.db
    .update(schedules)
    .set({ consecutiveFailures: failures, ...(lastError ? { lastError } : {}) })
    .where(and(eq(schedules.id, schedule.id), eq(schedules.paused, false)));
  if (!lastError || failures < schedule.pauseAfterFailures) return;
  const note = `paused after ${failures} runs in a row failed; the last, task ${last.id}, with ${last.errorCode}: ${last.errorMessage ?? ''}`;
  if (await pauseSchedule(deps, schedule.id, note, { reason: 'failing', lastError })) await alertPaused(deps, schedule, lastError, failures);
}

/** A schedule's last error holds at most this many UTF-16 units of the task's message. */
const ERROR_MESSAGE_MAX = 1000;

type Outcome = Awaited<ReturnType<typeof recentOutcomes>>[number];

function errorOf(t: Outcome): ScheduleLastError {
  const code = taskErrorCode(t.errorCode);
  return { code, message: storableText(t.errorMessage ?? taskErrorSentence(code), ERROR_MESSAGE_MAX), task_id: t.id, run: t.runs, at: (t.finishedAt ?? new Date()).toISOString() };
}

/** The schedule's last pause_after_failures ended tasks since its failures last counted from zero. */
function recentOutcomes(deps: ScheduleDeps, s: ScheduleRow) {
  return deps.db
    .select({ id: tasks.id, status: tasks.status, errorCode: tasks.errorCode, errorMessage: tasks.errorMessage, runs: tasks.runs, finishedAt: tasks.finishedAt })
    .from(tasks)
    .where(
      and(
        eq(tasks.projectId, s.projectId),
        eq(tasks.scheduleId, s.id),
        inArray(tasks.status, ['succeeded', 'failed', 'expired']),
        gte(tasks.finishedAt, s.countingSince),
      ),
    )
    .orderBy(desc(tasks.finishedAt))
    .limit(s.pauseAfterFailures);
}
