// A schedule's windows (ADR 0034): a run due at T exports the window from the schedule's previous
// due time to T. Both ends are Temporal's own fire times, asked of the Temporal Schedule
// (ListScheduleMatchingTimes): the same code that decides when it fires, so a window follows the
// cron dialect, the time zone and its DST changes exactly, and consecutive windows tile the time line.
import { msNumberToTs, tsToMs } from '@temporalio/common/lib/time.js';
import type { Window } from './placeholders.js';
import type { ScheduleDeps } from './schedules.js';

type Deps = Pick<ScheduleDeps, 'temporal' | 'config'>;

/** The server answers at most this many times per question, the earliest first. */
const PAGE = 1000;
/** How far back the previous due time is looked for, step by step (the last: a 29 February cron). */
const LOOKBACK_MS = [60_000, 3_600_000, 86_400_000, 32 * 86_400_000, 367 * 86_400_000, 8 * 367 * 86_400_000];

/** The times the schedule is due after `after` up to and including `upTo`, at most PAGE of them. */
async function dueTimes({ temporal, config }: Deps, scheduleId: string, after: Date, upTo: Date): Promise<Date[]> {
  const res = await temporal.workflowService.listScheduleMatchingTimes({
    namespace: config.TEMPORAL_NAMESPACE,
    scheduleId,
    startTime: msNumberToTs(after.getTime()),
    endTime: msNumberToTs(upTo.getTime()),
  });
  return (res.startTime ?? []).map((t) => new Date(tsToMs(t)));
}

/** The last due time strictly before `at`, or null when none is within eight years. */
export async function previousDueTime(deps: Deps, scheduleId: string, at: Date): Promise<Date | null> {
  const upTo = new Date(at.getTime() - 1);
  for (const back of LOOKBACK_MS) {
    let after = new Date(at.getTime() - back);
    let times = await dueTimes(deps, scheduleId, after, upTo);
    // A full page is the earliest PAGE: the latest lies further on.
    while (times.length === PAGE) {
      after = times[PAGE - 1]!;
      const rest = await dueTimes(deps, scheduleId, after, upTo);
      if (rest.length === 0) break;
      times = rest;
    }
    if (times.length > 0) return times[times.length - 1]!;
  }
  return null;
}

/** The window of a run due at `at`: from the previous due time (or `fallback`, when there is none) to `at`. */
export async function windowOf(deps: Deps, scheduleId: string, at: Date, fallback: Date): Promise<Window> {
  return { start: (await previousDueTime(deps, scheduleId, at)) ?? fallback, end: at };
}

/** The due times after `start` up to and including `end`: the first `limit + 1` of them at most. */
export async function dueBetween(deps: Deps, scheduleId: string, start: Date, end: Date, limit: number): Promise<Date[]> {
  const out: Date[] = [];
  let after = start;
  while (out.length <= limit) {
    const times = await dueTimes(deps, scheduleId, after, end);
    out.push(...times);
    if (times.length < PAGE) break;
    after = times[times.length - 1]!;
  }
  return out.slice(0, limit + 1);
}
