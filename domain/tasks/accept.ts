// Accepting a submission in one statement (ADR 0020, 0021): de-duplication, the submit rate (GCRA, as in
// rate.ts) and the insert, plus admission's decision for the new row, in the database function
// dc_accept_task. The statement runs under the project's admission lock (admission.ts), so it sees
// every slot taken or freed before it and nobody admits beside it: when the project has a free slot
// and nothing else waiting, the task is inserted admitted and the caller starts its run at once.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf, runsOneAtATime } from '../../db/client.js';
import type { TaskRow } from '../../db/schema.js';
import { lockAdmission } from './admission.js';
import { type RateState, refusal, state, WINDOW_MS } from './rate.js';
import { noRunYet } from './status.js';

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
  options: Record<string, unknown>;
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

class LostRace extends Error {}

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

/**
 * One statement: the duplicate, or the quota taken and the row inserted (admitted if a slot is free
 * and nobody waits), by dc_accept_task (db/migrations/0005_accept_function.sql), whose statements
 * keep their plans, where an ad-hoc statement would be planned again on every submission.
 */
function acceptStatement(v: NewTaskValues, admittedAt: Date, outsideQueue: boolean) {
  return sql`select * from dc_accept_task(${v.id}, ${v.projectId}, ${v.operatorId}, ${v.type}, ${v.fileName}, ${v.sourceUrl}, ${v.callback}::text,
    ${v.pageSize}::int, ${v.priority}::int, ${JSON.stringify(v.options)}::jsonb, ${v.idempotencyKey}::text, ${v.requestHash}, ${v.scheduleId}::text,
    ${admittedAt.toISOString()}::timestamptz, ${v.createdAt.toISOString()}::timestamptz, ${outsideQueue}, ${WINDOW_MS}::float8)`;
}

/** The row as the statement inserted it (the columns it leaves to their defaults filled in alike). */
function insertedRow(v: NewTaskValues, admittedAt: Date | null): TaskRow {
  return {
    ...v,
    ...noRunYet(),
    status: 'queued',
    runs: 1,
    admittedAt,
    updatedAt: v.createdAt,
  };
}

/**
 * Runs the statement under the project's admission lock: one transaction of two statements; on
 * PGlite, which runs one statement at a time, the statement alone (one round trip instead of
 * four). `outsideQueue`: a sync export (it holds a slot from the start and never waits in the
 * queue; the API's sync slots bound it, docs/adr/0017-lean-sync-exports.md).
 */
export async function acceptSubmission(db: Db, v: NewTaskValues, outsideQueue = false): Promise<Acceptance> {
  const admittedAt = new Date();
  const statement = acceptStatement(v, admittedAt, outsideQueue);
  try {
    if (runsOneAtATime(db)) return answer(v, admittedAt, rowsOf<Answer>(await db.execute(statement))[0]);
    return await db.transaction(async (tx) => {
      await lockAdmission(tx, v.projectId);
      return answer(v, admittedAt, rowsOf<Answer>(await tx.execute(statement))[0]);
    });
  } catch (err) {
    if (err instanceof LostRace) return { kind: 'lost' };
    throw err;
  }
}

/** What the statement's answer means (a throw inside the transaction rolls it back). */
function answer(v: NewTaskValues, admittedAt: Date, a: Answer | undefined): Acceptance {
  if (!a || a.limit === null) throw new Error(`project ${v.projectId} not found`);
  if (a.dup_id !== null) return { kind: 'duplicate', taskId: a.dup_id, requestHash: a.dup_hash! };
  if (a.tat === null) throw refusal(a.limit, a.old_tat ?? 0, a.now_ms);
  // The quota was taken but an identical request won the insert: give the quota back (only
  // possible beside other connections, so never on PGlite, where nothing is rolled back).
  if (a.admitted === null) throw new LostRace();
  const task = insertedRow(v, a.admitted ? admittedAt : null);
  return { kind: 'inserted', task, rate: state(a.limit, a.tat, a.now_ms), dispatch: !a.admitted && a.waiting && a.free > 0 };
}
