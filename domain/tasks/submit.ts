// Accepting a task: allow-lists, submit rate, de-duplication, then the row and its workflow.
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type ProjectRow, type TaskRow, tasks } from '../../db/schema.js';
import { ACTIVE_STATUSES, type ExportType } from '../../model/task.js';
import { newId, randomToken, sha256Hex } from '../../platform/crypto.js';
import { DomainError } from '../errors.js';
import type { StoredSheet } from '../staging/sheets.js';
import { checkOutgoingUrl } from '../source/hosts.js';
import type { Client } from '@temporalio/client';
import { type AdmissionDeps, dispatch } from './admission.js';
import { startSyncRun } from './run.js';
import { type RateState, takeSubmission } from './rate.js';
import { deleteUnstarted, insertQueued } from './status.js';

export interface SubmitInput {
  source_url: string;
  operator_id: string;
  type: ExportType;
  file_name?: string | undefined;
  title?: string | undefined;
  summary?: string | undefined;
  template?: unknown;
  header?: unknown;
  footer?: unknown;
  /** An Excel workbook of several sheets; source_url is then the first sheet's. */
  sheets?: StoredSheet[] | undefined;
  max_file_rows?: number | undefined;
  max_file_bytes?: number | undefined;
  callback?: string | undefined;
  page_size: number;
  priority: number;
}

export type SubmitDeps = AdmissionDeps;

/** Canonical JSON (sorted keys) so that two equal requests hash the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

export function defaultFileName(now = new Date()): string {
  return `export-${now.toISOString().slice(0, 10)}-${randomToken(4).replace(/[^a-zA-Z0-9]/g, 'x')}`;
}

function checkHost(field: string, url: string, hosts: readonly string[], list: string): void {
  const check = checkOutgoingUrl(url, hosts);
  if (check.ok) return;
  if (check.reason === 'invalid') {
    const message = `${field} is not an http(s) URL without credentials`;
    throw DomainError.invalid(field, message, message);
  }
  const why = check.reason === 'blocked' ? 'points at a refused address (cloud metadata or link-local)' : `has a host that is not on the project's ${list}`;
  const message = `${field} ${why}`;
  throw DomainError.invalid(field, message, message, field === 'callback' ? 'callback_host_not_allowed' : 'source_host_not_allowed');
}

export function checkHosts(project: ProjectRow, input: SubmitInput): void {
  if (input.sheets) input.sheets.forEach((s, i) => checkHost(`sheets.${i}.source_url`, s.source_url, project.sourceHosts, 'source_hosts'));
  else checkHost('source_url', input.source_url, project.sourceHosts, 'source_hosts');
  if (input.callback) checkHost('callback', input.callback, project.callbackHosts, 'callback_hosts');
}

export interface Submitted {
  task: TaskRow;
  created: boolean;
  /** The submit quota after this submission (absent for a de-duplicated answer, which is free). */
  rate?: RateState;
}

/** Rolls back a submission that lost the insert to an identical one. */
class LostRace extends Error {}

/** Who submits besides the caller: a schedule's run (domain/schedules/runs.ts). */
export interface SubmitOrigin {
  scheduleId?: string | undefined;
  /**
   * POST /v1/tasks/sync with a sync slot held: the task is inserted admitted, outside its
   * project's queue, and its run is the sync export (startSyncRun; `eager` as there). It holds a
   * project slot while it runs but never waits for one: the API's sync slots bound it instead
   * (docs/adr/0017-lean-sync-exports.md).
   */
  sync?: { eager?: Client | undefined; inserted?: () => void; started?: (eagerly: boolean) => void };
}

export async function submitTask(deps: SubmitDeps, project: ProjectRow, input: SubmitInput, idempotencyKey: string | undefined, origin: SubmitOrigin = {}): Promise<Submitted> {
  checkHosts(project, input);
  const requestHash = sha256Hex(canonical(input));
  const existing = await findDuplicate(deps.db, project.id, requestHash, idempotencyKey);
  if (existing) return { task: existing, created: false };
  let created: { task: TaskRow; rate: RateState };
  try {
    // One transaction: a submission that loses to an identical one gives its quota back.
    created = await deps.db.transaction(async (tx) => {
      const rate = await takeSubmission(tx, project);
      const task = await insertQueued(tx, newTask(project, input, requestHash, idempotencyKey, origin));
      if (!task) throw new LostRace();
      return { task, rate };
    });
  } catch (err) {
    if (!(err instanceof LostRace)) throw err;
    const winner = await findDuplicate(deps.db, project.id, requestHash, idempotencyKey);
    if (winner) return { task: winner, created: false };
    throw keyReused();
  }
  origin.sync?.inserted?.();
  if (origin.sync) await startSyncOrRemove(deps, created.task, origin.sync);
  else await admitOrRemove(deps, created.task);
  return { ...created, created: true };
}

/** The row a submission inserts (a preview renders one it never stores). */
export function newTask(project: ProjectRow, input: SubmitInput, requestHash: string, idempotencyKey: string | undefined, origin: SubmitOrigin = {}) {
  return {
    id: newId('tsk'),
    projectId: project.id,
    operatorId: input.operator_id,
    type: input.type,
    fileName: input.file_name ?? defaultFileName(),
    sourceUrl: input.source_url,
    callback: input.callback ?? null,
    pageSize: input.page_size,
    priority: input.priority,
    options: {
      title: input.title,
      summary: input.summary,
      template: input.template,
      header: input.header,
      footer: input.footer,
      sheets: input.sheets,
      max_file_rows: input.max_file_rows,
      max_file_bytes: input.max_file_bytes,
    },
    idempotencyKey: idempotencyKey ?? null,
    requestHash,
    scheduleId: origin.scheduleId ?? null,
    // A sync task holds its slot from the start; a crash before its run starts leaves it to
    // admission's stale restart (admission.ts), which runs it as an ordinary export.
    ...(origin.sync ? { admittedAt: new Date() } : {}),
    // Set here rather than by the database: list cursors compare it at millisecond precision.
    createdAt: new Date(),
  };
}

const keyReused = () => {
  const message = 'this Idempotency-Key was used with a different request body';
  return DomainError.invalid('Idempotency-Key', message, message, 'idempotency_key_reused');
};

async function findDuplicate(db: Db, projectId: string, requestHash: string, key: string | undefined): Promise<TaskRow | undefined> {
  if (key) {
    const [byKey] = await db.select().from(tasks).where(and(eq(tasks.projectId, projectId), eq(tasks.idempotencyKey, key)));
    if (byKey && byKey.requestHash !== requestHash) throw keyReused();
    return byKey;
  }
  const [active] = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.requestHash, requestHash), inArray(tasks.status, [...ACTIVE_STATUSES])))
    .limit(1);
  return active;
}

async function startSyncOrRemove(deps: SubmitDeps, task: TaskRow, sync: NonNullable<SubmitOrigin['sync']>): Promise<void> {
  try {
    const { eagerlyStarted } = await startSyncRun(deps, task, sync.eager);
    sync.started?.(eagerlyStarted);
  } catch (err) {
    await deleteUnstarted(deps.db, task.id);
    throw new DomainError('temporal_unavailable', `the task could not be scheduled: ${(err as Error).message}`);
  }
}

/**
 * Starts the project's next tasks if it has free slots. When Temporal cannot take the new task's
 * run, the task is removed and the caller told (nothing ran, nothing was stored); a crash here
 * leaves the task queued, and admission's listener or sweep starts it (admission.ts).
 */
async function admitOrRemove(deps: SubmitDeps, task: TaskRow): Promise<void> {
  const { failed } = await dispatch(deps, task.projectId);
  const err = failed.get(task.id);
  if (!err) return;
  await deleteUnstarted(deps.db, task.id);
  throw new DomainError('temporal_unavailable', `the task could not be scheduled: ${err.message}`);
}
