// A project's quotas (model/project-settings.ts quota_*): the check itself is the database's,
// dc_quota_check under the admission lock inside dc_accept_task (db/functions/dc_quota_check.sql),
// so racing submissions read the use one at a time. Here: its refusal turned into our error, and
// the other way in, a retry, checked by the same function.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.js';
import { DomainError } from '../errors.js';

export const QUOTA_NAMES = ['quota_monthly_rows', 'quota_monthly_bytes', 'quota_stored_bytes'] as const;
type QuotaName = (typeof QUOTA_NAMES)[number];

/** What a refusal tells: which quota, its limit, the use, and when it resets (null: no file expires yet). */
interface QuotaState {
  name: QuotaName;
  limit: number;
  used: number;
  resets_at: string | null;
}

/** The SQLSTATE dc_quota_check raises with. */
const QUOTA_SQLSTATE = 'DCQ01';

export class QuotaExceededError extends DomainError {
  constructor(readonly quota: QuotaState) {
    const when =
      quota.name === 'quota_stored_bytes'
        ? `stored bytes fall as files expire${quota.resets_at ? ` (the next at ${quota.resets_at})` : ''}`
        : `it resets at ${quota.resets_at} (the next UTC calendar month)`;
    const retryAfter = quota.resets_at ? Math.max(1, Math.ceil((Date.parse(quota.resets_at) - Date.now()) / 1000)) : undefined;
    super('quota_exceeded', `this project has reached its ${quota.name} of ${quota.limit} (used: ${quota.used}); ${when}`, retryAfter ? { retryAfter } : {});
  }
}

interface RaisedQuota {
  code?: string;
  detail?: string;
  cause?: unknown;
}

/** The refusal dc_quota_check raised, wherever the driver (postgres.js, PGlite, drizzle's wrapper) put it. */
function raisedQuota(err: unknown): { quota: QuotaName; limit: number; used: number; resets_at: string | null } | undefined {
  for (let e = err as RaisedQuota | undefined; e; e = e.cause as RaisedQuota | undefined) {
    if (e.code === QUOTA_SQLSTATE && e.detail) return JSON.parse(e.detail) as ReturnType<typeof raisedQuota>;
  }
  return undefined;
}

/**
 * The error to throw for `err`: a QuotaExceededError when it is dc_quota_check's refusal, else err
 * itself. A stored-bytes refusal learns when the project's next file expires, read after the
 * statement (outside the admission lock).
 */
export async function quotaRefusal(db: Db, projectId: string, err: unknown): Promise<unknown> {
  const raised = raisedQuota(err);
  if (!raised) return err;
  const resetsAt = raised.quota === 'quota_stored_bytes' ? await nextExpiry(db, projectId) : raised.resets_at;
  return new QuotaExceededError({ name: raised.quota, limit: Number(raised.limit), used: Number(raised.used), resets_at: resetsAt });
}

async function nextExpiry(db: Db, projectId: string): Promise<string | null> {
  const [row] = rowsOf<{ at: string | Date | null }>(
    await db.execute(sql`select min(expires_at) as at from tasks where project_id = ${projectId} and status in ('succeeded', 'failed') and expires_at is not null`),
  );
  return row?.at ? new Date(row.at).toISOString() : null;
}

/** Throws quota_exceeded when one of the project's quotas is reached (a retry runs the task again). */
export async function checkQuota(db: Db, projectId: string): Promise<void> {
  try {
    await db.execute(sql`select dc_quota_check(${projectId})`);
  } catch (err) {
    throw await quotaRefusal(db, projectId, err);
  }
}
