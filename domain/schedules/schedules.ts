// Schedules (docs/schedules.md, ADR 0014): a row per schedule, and a Temporal Schedule of the same id that
// starts `scheduledRunWorkflow` at each due time, so schedules survive restarts and show in the
// Temporal UI. The cron expression and the time zone are Temporal's to parse: what it accepts is
// exactly what will fire, and its refusal ("Minute is not in range [0-59]") is the 422.
import { type Client, ScheduleNotFoundError, ScheduleOverlapPolicy, type ScheduleSpec, ServiceError } from '@temporalio/client';
import { and, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type ProjectRow, type ScheduleRow, schedules } from '../../db/schema.js';
import type { OverlapPolicy, PausedReason, ScheduleLastError } from '../../model/schedule.js';
import { storableText } from '../../model/storable.js';
import type { Config } from '../../platform/config.js';
import { newId } from '../../platform/crypto.js';
import { scheduledRunWorkflow } from '../../workflows/scheduled-run.js';
import { encodeCursor, newestFirst, olderThan } from '../cursor.js';
import { DomainError } from '../errors.js';
import { settingsOf } from '../projects/projects.js';
import { checkDestination, checkHosts, type SubmitInput } from '../tasks/submit.js';
import { fillBody } from './placeholders.js';
import type { LiveState } from './view.js';

export interface ScheduleDeps {
  db: Db;
  temporal: Client;
  config: Config;
}

export interface ScheduleInput {
  cron?: string | undefined;
  /** An interval as written ("1h30m") and in milliseconds. */
  every?: { text: string; ms: number } | undefined;
  timezone: string;
  overlap: OverlapPolicy;
  pause_after_failures: number;
  task: SubmitInput;
}

const temporalSpec = (s: Pick<ScheduleRow, 'cron' | 'every' | 'timezone'>, everyMs?: number): ScheduleSpec =>
  s.cron ? { cronExpressions: [s.cron], timezone: s.timezone } : { intervals: [{ every: everyMs ?? 60_000 }], timezone: s.timezone };

/** Temporal's answer as the API's: a spec it refuses is a 422 on the field; an unreachable server a 503. */
function fromTemporal(err: unknown, field?: string): unknown {
  // The client turns the server's INVALID_ARGUMENT into a TypeError carrying the server's sentence.
  if (err instanceof TypeError && field) {
    const f = /time ?zone/i.test(err.message) ? 'timezone' : field;
    return DomainError.invalid(f, err.message);
  }
  if (err instanceof ServiceError) return new DomainError('temporal_unavailable', `Temporal did not take the schedule: ${err.message}`);
  return err;
}

export async function createSchedule(deps: ScheduleDeps, project: ProjectRow, input: ScheduleInput): Promise<ScheduleRow> {
  // The allow-lists, as a run today would meet them.
  checkHosts(project, fillBody(input.task, new Date(), input.timezone));
  await checkDestination(deps.db, project, input.task);
  const max = settingsOf(project).max_schedules;
  const row = await deps.db.transaction(async (tx) => {
    // One creator per project at a time, so the count and the insert agree.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`schedules:${project.id}`}))`);
    const [held] = await tx.select({ n: count() }).from(schedules).where(eq(schedules.projectId, project.id));
    if ((held?.n ?? 0) >= max) throw new DomainError('schedule_limit_reached', `this project may have ${max} schedules (max_schedules); delete one first`);
    const [inserted] = await tx
      .insert(schedules)
      .values({
        id: newId('sch'),
        projectId: project.id,
        cron: input.cron ?? null,
        every: input.every?.text ?? null,
        timezone: input.timezone,
        overlap: input.overlap,
        pauseAfterFailures: input.pause_after_failures,
        body: input.task as unknown as Record<string, unknown>,
        createdAt: new Date(),
      })
      .returning();
    return inserted!;
  });
  let created = false;
  try {
    await deps.temporal.schedule.create({
      scheduleId: row.id,
      spec: temporalSpec(row, input.every?.ms),
      action: { type: 'startWorkflow', workflowType: scheduledRunWorkflow, args: [{ scheduleId: row.id }], taskQueue: deps.config.TEMPORAL_TASK_QUEUE, workflowId: `${row.id}.run` },
      // Every due run starts: a run only submits a task (ADR 0014), runs of one schedule submit one
      // at a time (runs.ts), and whether a run waits for the previous task is the schedule's own
      // overlap rule. After an outage, runs due in the last day are made up.
      policies: { overlap: ScheduleOverlapPolicy.ALLOW_ALL, catchupWindow: '1 day' },
      memo: { projectId: project.id },
    });
    created = true;
    const { info } = await deps.temporal.schedule.getHandle(row.id).describe();
    if (info.nextActionTimes.length === 0) throw DomainError.invalid('cron', 'never fires (no date matches it)');
  } catch (err) {
    if (created) await deps.temporal.schedule.getHandle(row.id).delete().catch(() => {});
    await deps.db.delete(schedules).where(eq(schedules.id, row.id));
    throw fromTemporal(err, input.cron ? 'cron' : 'every');
  }
  return row;
}

/** A schedule of the given project, or not_found (another project's looks exactly like a missing one). */
export async function ownedSchedule(db: Db, projectId: string, id: string): Promise<ScheduleRow> {
  const [row] = await db.select().from(schedules).where(eq(schedules.id, id));
  if (!row || row.projectId !== projectId) throw DomainError.notFound('schedule');
  return row;
}

export async function getSchedule(db: Db, id: string): Promise<ScheduleRow | undefined> {
  const [row] = await db.select().from(schedules).where(eq(schedules.id, id));
  return row;
}

/** Newest first, `limit` at a time. */
export async function listSchedules(db: Db, projectId: string, q: { limit: number; cursor?: string | undefined }): Promise<{ items: ScheduleRow[]; nextCursor: string | null }> {
  const w = [eq(schedules.projectId, projectId)];
  if (q.cursor) w.push(olderThan(schedules.createdAt, schedules.id, q.cursor));
  const rows = await db.select().from(schedules).where(and(...w)).orderBy(...newestFirst(schedules.createdAt, schedules.id)).limit(q.limit + 1);
  const items = rows.slice(0, q.limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > q.limit && last ? encodeCursor(last) : null };
}


/** What Temporal says of it now: the next due times, and whether it is paused (the truth of what fires). */
export async function liveState(deps: ScheduleDeps, row: ScheduleRow): Promise<LiveState | null> {
  try {
    const d = await deps.temporal.schedule.getHandle(row.id).describe();
    return { nextRuns: d.info.nextActionTimes.slice(0, 5), paused: d.state.paused, note: d.state.note || null };
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return null;
    throw fromTemporal(err);
  }
}

/** A schedule's note: what paused it, in at most this many UTF-16 units. */
const SCHEDULE_NOTE_MAX = 1000;

/** Why a schedule is paused (model/schedule.ts), and the failed run that paused it, if one did. */
interface PauseCause {
  reason: PausedReason;
  lastError?: ScheduleLastError | undefined;
}

/** Pauses it in Temporal and on the row; false when it was paused already (the first cause stays). */
export async function pauseSchedule(deps: ScheduleDeps, id: string, note: string, cause: PauseCause = { reason: 'manual' }): Promise<boolean> {
  // The note may quote a task's error: storable, and no longer than a note is (model/storable.ts).
  const stored = storableText(note, SCHEDULE_NOTE_MAX);
  const [won] = await deps.db
    .update(schedules)
    .set({ paused: true, note: stored, pausedReason: cause.reason, ...(cause.lastError ? { lastError: cause.lastError } : {}), updatedAt: new Date() })
    .where(and(eq(schedules.id, id), eq(schedules.paused, false)))
    .returning({ id: schedules.id });
  try {
    await deps.temporal.schedule.getHandle(id).pause(stored);
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw fromTemporal(err);
  }
  return won !== undefined;
}

/** Resumes it; its failures count afresh from now, and what paused it is forgotten. */
export async function resumeSchedule(deps: ScheduleDeps, id: string, note: string): Promise<void> {
  try {
    await deps.temporal.schedule.getHandle(id).unpause(note);
  } catch (err) {
    throw fromTemporal(err);
  }
  const now = new Date();
  await deps.db
    .update(schedules)
    .set({ paused: false, note: null, pausedReason: null, lastError: null, consecutiveFailures: 0, alertedAt: null, countingSince: now, updatedAt: now })
    .where(eq(schedules.id, id));
}

/** Starts a run now, whatever the calendar says (a paused schedule too). */
export async function triggerSchedule(deps: ScheduleDeps, id: string): Promise<void> {
  try {
    // Temporal's default for a trigger is the schedule's policy; said here, as it is the point.
    await deps.temporal.schedule.getHandle(id).trigger(ScheduleOverlapPolicy.ALLOW_ALL);
  } catch (err) {
    throw fromTemporal(err);
  }
}

/** Deletes the Temporal Schedule, then the row; the tasks its runs made stay, with their schedule_id. */
export async function deleteSchedule(deps: ScheduleDeps, id: string): Promise<void> {
  try {
    await deps.temporal.schedule.getHandle(id).delete();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw fromTemporal(err);
  }
  await deps.db.delete(schedules).where(eq(schedules.id, id));
}
