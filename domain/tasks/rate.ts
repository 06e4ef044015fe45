// The submit rate limit (docs/api.md#post-v1tasks): GCRA, the generic cell rate algorithm, in one conditional
// UPDATE of the project's row, so concurrent submissions through any number of API processes
// never overshoot. A project may submit `submit_per_minute` tasks in a burst, then one every
// 60 s / submit_per_minute; a refused submission learns the exact time until one is accepted.
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type ProjectRow, projects } from '../../db/schema.js';
import { DomainError } from '../errors.js';

export const WINDOW_MS = 60_000;

export interface RateState {
  /** Submissions a minute (the quota). */
  limit: number;
  /** How many more would be accepted right now. */
  remaining: number;
  /** Seconds until the whole quota is available again. */
  resetSeconds: number;
}

export class RateLimitedError extends DomainError {
  constructor(
    readonly rate: RateState,
    retryAfter: number,
  ) {
    super('rate_limited', `this project may submit ${rate.limit} tasks a minute; try again in ${retryAfter} s`, { retryAfter });
  }
}

const nowMs = sql<number>`(extract(epoch from now()) * 1000)::float8`;

export function state(limit: number, tatMs: number, now: number): RateState {
  const interval = WINDOW_MS / limit;
  const ahead = Math.max(0, tatMs - now);
  return { limit, remaining: Math.max(0, Math.floor((WINDOW_MS - ahead) / interval)), resetSeconds: Math.ceil(ahead / 1000) };
}

/** The project's theoretical arrival time after one more submission (GCRA). */
export function nextTat(submitPerMinute: number) {
  const base = sql`greatest(coalesce(${projects.submitTat}, now()), now())`;
  return sql`${base} + ${WINDOW_MS / submitPerMinute}::float8 * interval '1 millisecond'`;
}

/** Whether a submission moving the arrival time to `next` stays within the window. */
export const withinWindow = (next: ReturnType<typeof nextTat>) => sql`${next} - now() <= ${WINDOW_MS}::float8 * interval '1 millisecond'`;

/** The refusal for a project whose arrival time is `tat` (ms; 0 when never set) at `now` (ms). */
export function refusal(submitPerMinute: number, tat: number, now: number): RateLimitedError {
  const waitMs = Math.max(tat, now) + WINDOW_MS / submitPerMinute - WINDOW_MS - now;
  return new RateLimitedError(state(submitPerMinute, tat, now), Math.max(1, Math.ceil(waitMs / 1000)));
}

/** Takes one submission from the project's quota, or throws rate_limited with the true Retry-After. */
export async function takeSubmission(db: Db, project: ProjectRow): Promise<RateState> {
  const next = nextTat(project.submitPerMinute);
  const [taken] = await db
    .update(projects)
    .set({ submitTat: next })
    .where(and(eq(projects.id, project.id), withinWindow(next)))
    .returning({ tat: projects.submitTat, now: nowMs });
  if (taken) return state(project.submitPerMinute, taken.tat!.getTime(), taken.now);
  const [row] = await db.select({ tat: projects.submitTat, now: nowMs }).from(projects).where(eq(projects.id, project.id));
  throw refusal(project.submitPerMinute, row?.tat?.getTime() ?? 0, row?.now ?? Date.now());
}
