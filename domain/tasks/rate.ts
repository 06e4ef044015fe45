// The submit rate limit: GCRA, the generic cell rate algorithm, in one conditional UPDATE of the
// project's row by the database function dc_take_submission, so concurrent submissions through any
// number of API processes never overshoot. A project may submit `submit_per_minute` tasks in a
// burst, then one every 60 s / submit_per_minute; a refused one learns the exact time to wait.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.js';
import type { ProjectRow } from '../../db/schema.js';
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

export function state(limit: number, tatMs: number, now: number): RateState {
  const interval = WINDOW_MS / limit;
  const ahead = Math.max(0, tatMs - now);
  return { limit, remaining: Math.max(0, Math.floor((WINDOW_MS - ahead) / interval)), resetSeconds: Math.ceil(ahead / 1000) };
}

/** The refusal for a project whose arrival time is `tat` (ms; 0 when never set) at `now` (ms). */
export function refusal(submitPerMinute: number, tat: number, now: number): RateLimitedError {
  const waitMs = Math.max(tat, now) + WINDOW_MS / submitPerMinute - WINDOW_MS - now;
  return new RateLimitedError(state(submitPerMinute, tat, now), Math.max(1, Math.ceil(waitMs / 1000)));
}

/**
 * Takes one submission from the project's quota, or throws rate_limited with the true Retry-After:
 * dc_take_submission (db/functions/dc_take_submission.sql), the rate rule the acceptance of
 * a submission applies too.
 */
export async function takeSubmission(db: Db, project: ProjectRow): Promise<RateState> {
  const [r] = rowsOf<{ limit: number; old_tat: number | null; tat: number | null; now_ms: number }>(
    await db.execute(sql`select * from dc_take_submission(${project.id}, ${WINDOW_MS}::float8)`),
  );
  if (!r) throw DomainError.notFound(`project ${project.id}`);
  if (r.tat === null) throw refusal(r.limit, r.old_tat ?? 0, r.now_ms);
  return state(r.limit, r.tat, r.now_ms);
}
