// A schedule's backfill (ADR 0034): every run due after `start` up to and including `end`, so that
// their windows (windows.ts) cover exactly [start, end] when both are due times. Temporal's own
// backfill starts them, one after another, oldest first (BUFFER_ALL); each is an ordinary run that
// submits its task, and none is skipped by the schedule's overlap rule (runs.ts reads this row).
import { ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import { desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type ScheduleRow, scheduleBackfills } from '../../db/schema.js';
import { newId } from '../../platform/crypto.js';
import { DomainError } from '../errors.js';
import type { ScheduleDeps } from './schedules.js';
import type { BackfillProgress } from './view.js';
import { dueBetween } from './windows.js';

/** Runs one backfill may start: Temporal buffers at most 1,000 starts per schedule (BUFFER_ALL). */
export const MAX_BACKFILL_INTERVALS = 1000;

export interface Backfilled {
  intervals: number;
  first: Date | null;
  last: Date | null;
}

/** Starts the backfill and says how many runs it makes; refused on a paused schedule and beyond the limit. */
export async function backfillSchedule(deps: ScheduleDeps, row: ScheduleRow, start: Date, end: Date): Promise<Backfilled> {
  if (end.getTime() <= start.getTime()) throw DomainError.invalid('end', 'must be after start');
  const handle = deps.temporal.schedule.getHandle(row.id);
  const live = await handle.describe().catch((err: unknown) => {
    if (err instanceof ScheduleNotFoundError) throw DomainError.notFound('schedule');
    throw new DomainError('temporal_unavailable', `Temporal did not describe the schedule: ${String(err)}`);
  });
  // A paused schedule is paused for a reason (its runs failed, or someone froze it): a thousand
  // runs do not start behind it. Temporal itself would run them.
  if (live.state.paused || row.paused) throw new DomainError('schedule_paused', 'the schedule is paused; resume it before a backfill');
  // Starts beyond Temporal's buffer would be dropped: a backfill waits for the one before it.
  const waiting = Number(live.raw.info?.bufferSize ?? 0);
  const due = await dueBetween(deps, row.id, start, end, MAX_BACKFILL_INTERVALS).catch((err: unknown) => {
    throw new DomainError('temporal_unavailable', `Temporal did not answer the schedule's due times: ${String(err)}`);
  });
  if (due.length > MAX_BACKFILL_INTERVALS) {
    throw DomainError.invalid('end', `more than ${MAX_BACKFILL_INTERVALS} runs are due in this range; backfill it in parts`, undefined, 'backfill_too_large');
  }
  if (due.length === 0) return { intervals: 0, first: null, last: null };
  if (waiting + due.length > MAX_BACKFILL_INTERVALS) {
    throw new DomainError('conflict', `${waiting} runs of an earlier backfill are still waiting to start; try again when they have`);
  }
  const id = newId('bfl');
  await deps.db.insert(scheduleBackfills).values({ id, scheduleId: row.id, startAt: start, endAt: end, intervals: due.length });
  try {
    // Temporal's range includes both ends; a millisecond past start leaves out a run due at start,
    // whose window lies before it.
    await handle.backfill({ start: new Date(start.getTime() + 1), end, overlap: ScheduleOverlapPolicy.BUFFER_ALL });
  } catch (err) {
    await deps.db.delete(scheduleBackfills).where(eq(scheduleBackfills.id, id));
    throw new DomainError('temporal_unavailable', `Temporal did not take the backfill: ${String(err)}`);
  }
  return { intervals: due.length, first: due[0]!, last: due[due.length - 1]! };
}

/** The latest backfill of each of the schedules, with its progress (runs that made their task, of all). */
export async function latestBackfills(db: Db, scheduleIds: readonly string[]): Promise<Map<string, BackfillProgress>> {
  if (scheduleIds.length === 0) return new Map();
  const b = scheduleBackfills;
  const rows = await db
    .selectDistinctOn([b.scheduleId], { scheduleId: b.scheduleId, startAt: b.startAt, endAt: b.endAt, done: b.done, intervals: b.intervals, createdAt: b.createdAt })
    .from(b)
    .where(inArray(b.scheduleId, [...scheduleIds]))
    .orderBy(b.scheduleId, desc(b.createdAt));
  return new Map(rows.map((r) => [r.scheduleId, r]));
}
