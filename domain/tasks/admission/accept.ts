// Accepting a submission in one call of dc_accept_task (db/functions/dc_accept_task.sql):
// under the project's admission lock, the duplicate it repeats, or the submit quota taken and the
// row inserted, admitted with its start claimed when the project has a free slot and nothing else
// waits. The caller then starts the run (its Origin, origin.ts). The rules live in the database functions;
// this module only reads their answer.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../../db/client.js';
import type { TaskRow } from '../../../db/schema.js';
import type { TaskOptions } from '../../../model/task-options.js';
import { DomainError } from '../../errors.js';
import { quotaRefusal } from '../../usage/quota.js';
import { type RateState, refusal, state, WINDOW_MS } from '../rate.js';
import { noRunYet } from '../status.js';
import { claimMs, START_CLAIM_MS } from './claim.js';

/** The values of a new task row (submit.ts newTask). */
export interface NewTaskValues {
  id: string;
  projectId: string;
  operatorId: string;
  type: TaskRow['type'];
  fileName: string;
  sourceUrl: string;
  callback: string | null;
  pageSize: number;
  priority: number;
  options: TaskOptions;
  idempotencyKey: string | null;
  requestHash: string;
  scheduleId: string | null;
  createdAt: Date;
}

export type Acceptance =
  /** An identical live task, or the task of the same Idempotency-Key (whose body may differ). */
  | { kind: 'duplicate'; taskId: string; requestHash: string }
  /** Recorded: `admitted` when it holds a slot now; `dispatch` when others wait beside free slots. */
  | { kind: 'inserted'; task: TaskRow; rate: RateState; dispatch: boolean }
  /** An identical request was recorded between the check and the insert; nothing was kept. */
  | { kind: 'lost' };

interface Answer {
  dup_id: string | null;
  dup_hash: string | null;
  limit: number | null;
  old_tat: number | null;
  tat: number | null;
  now_ms: number;
  admitted: boolean | null;
  free: number;
  waiting: boolean;
}

function acceptStatement(v: NewTaskValues, admittedAt: Date, outsideQueue: boolean) {
  return sql`select * from dc_accept_task(${v.id}, ${v.projectId}, ${v.operatorId}, ${v.type}, ${v.fileName}, ${v.sourceUrl}, ${v.callback}::text,
    ${v.pageSize}::int, ${v.priority}::int, ${JSON.stringify(v.options)}::jsonb, ${v.idempotencyKey}::text, ${v.requestHash}, ${v.scheduleId}::text,
    ${admittedAt.toISOString()}::timestamptz, ${v.createdAt.toISOString()}::timestamptz, ${outsideQueue}, ${WINDOW_MS}::float8, ${claimMs()})`;
}

/** The row as the statement inserted it (the columns it leaves to their defaults filled in alike). */
function insertedRow(v: NewTaskValues, admittedAt: Date | null): TaskRow {
  return {
    ...v,
    ...noRunYet(),
    status: 'queued',
    runs: 1,
    admittedAt,
    startClaimedUntil: admittedAt && new Date(admittedAt.getTime() + START_CLAIM_MS),
    updatedAt: v.createdAt,
  };
}

/**
 * One statement, on both databases: the function takes the admission lock itself. `outsideQueue`:
 * a sync export (it holds a slot from the start and never waits in the queue; the API's sync
 * slots bound it, docs/adr/0017-lean-sync-exports.md).
 */
export async function acceptSubmission(db: Db, v: NewTaskValues, outsideQueue = false): Promise<Acceptance> {
  const admittedAt = new Date();
  // A quota reached is refused by the statement itself (dc_quota_check.sql): quota_exceeded.
  const answer = await db.execute(acceptStatement(v, admittedAt, outsideQueue)).catch(async (err: unknown) => {
    throw await quotaRefusal(db, v.projectId, err);
  });
  const [a] = rowsOf<Answer>(answer);
  if (!a || a.limit === null) throw DomainError.notFound(`project ${v.projectId}`);
  if (a.dup_id !== null) return { kind: 'duplicate', taskId: a.dup_id, requestHash: a.dup_hash! };
  if (a.tat === null) throw refusal(a.limit, a.old_tat ?? 0, a.now_ms);
  if (a.admitted === null) return { kind: 'lost' };
  const task = insertedRow(v, a.admitted ? admittedAt : null);
  return { kind: 'inserted', task, rate: state(a.limit, a.tat, a.now_ms), dispatch: !a.admitted && a.waiting && a.free > 0 };
}

/** The task a submission repeats, by the same rule as the acceptance's. */
export async function findDuplicate(db: Db, projectId: string, requestHash: string, idempotencyKey: string | null): Promise<{ taskId: string; requestHash: string } | undefined> {
  const [d] = rowsOf<{ dup_id: string; dup_hash: string }>(await db.execute(sql`select * from dc_find_duplicate(${projectId}, ${requestHash}, ${idempotencyKey}::text)`));
  return d && { taskId: d.dup_id, requestHash: d.dup_hash };
}
