// Accepting a task: allow-lists, submit rate, de-duplication, then the row and its workflow.
import { and, eq, inArray } from 'drizzle-orm';
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/client.js';
import { type ProjectRow, type TaskRow, tasks } from '../../db/schema.js';
import { ACTIVE_STATUSES, type ExportType } from '../../model/task.js';
import { newId, randomToken, sha256Hex } from '../../platform/crypto.js';
import { DomainError } from '../errors.js';
import { type StoredSheet, taskSheets } from '../staging/sheets.js';
import { checkOutgoingUrl } from '../source/hosts.js';
import { acceptSubmission } from './accept.js';
import { type AdmissionDeps, dispatch, startAll } from './admission.js';
import { getTask } from './queries.js';
import type { RateState } from './rate.js';
import { startSyncRun } from './run.js';
import type { RunStarter } from './starter.js';
import { deleteUnstarted } from './status.js';

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

/**
 * An accepted task's sources against the project's list as it is now: an admin's removal applies
 * to retries, resumes and every later run, not only to new submissions.
 */
export function checkTaskSources(project: Pick<ProjectRow, 'sourceHosts'>, task: Pick<TaskRow, 'sourceUrl' | 'options'>): void {
  taskSheets(task).forEach((s, i, all) => checkHost(all.length > 1 ? `sheets.${i}.source_url` : 'source_url', s.sourceUrl, project.sourceHosts, 'source_hosts'));
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
  /**
   * The API's starter: the run starts after the answer (starter.ts, ADR 0020). Without it (a
   * schedule's run) the submission waits for the start, and a start Temporal refuses removes it.
   */
  starter?: RunStarter | undefined;
}

export async function submitTask(deps: SubmitDeps, project: ProjectRow, input: SubmitInput, idempotencyKey: string | undefined, origin: SubmitOrigin = {}): Promise<Submitted> {
  checkHosts(project, input);
  const requestHash = sha256Hex(canonical(input));
  // A duplicate that vanishes before it is read (its run could not start) is looked for again.
  for (let attempt = 0; ; attempt++) {
    const a = await acceptSubmission(deps.db, newTask(project, input, requestHash, idempotencyKey, origin), origin.sync !== undefined);
    if (a.kind === 'inserted') {
      origin.sync?.inserted?.();
      if (origin.sync) await startSyncOrRemove(deps, project, a.task, origin.sync);
      else if (origin.starter) startLater(origin.starter, project, a.task, a.dispatch);
      else await admitOrRemove(deps, project, a.task, a.dispatch);
      return { task: a.task, created: true, rate: a.rate };
    }
    if (a.kind === 'duplicate' && a.requestHash !== requestHash) throw keyReused();
    const existing = a.kind === 'duplicate' ? await getTask(deps.db, a.taskId) : await findDuplicate(deps.db, project.id, requestHash, idempotencyKey);
    if (existing) return { task: existing, created: false };
    if (a.kind === 'lost' && idempotencyKey) throw keyReused();
    if (attempt === 2) throw new DomainError('temporal_unavailable', 'the task could not be recorded: an identical one kept appearing and vanishing');
  }
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

/** The API's way (ADR 0020): the run, or the project's dispatch, after the answer. */
function startLater(starter: RunStarter, project: ProjectRow, task: TaskRow, mustDispatch: boolean): void {
  if (task.admittedAt) starter.start(task, project);
  else if (mustDispatch) starter.dispatch(project.id);
}

/**
 * Starts the new task's run when it was recorded admitted, or dispatches the project when others
 * wait beside free slots. When Temporal cannot take the new task's run, the task is removed and
 * the caller told (nothing ran, nothing was stored); a crash here leaves the task queued or
 * admitted, and admission's listener or sweep starts it (admission.ts).
 */
async function admitOrRemove(deps: SubmitDeps, project: ProjectRow, task: TaskRow, mustDispatch: boolean): Promise<void> {
  const { failed } = task.admittedAt ? await startAll(deps, [task], project) : mustDispatch ? await dispatch(deps, task.projectId) : { failed: new Map<string, Error>() };
  const err = failed.get(task.id);
  if (!err) return;
  await deleteUnstarted(deps.db, task.id);
  throw new DomainError('temporal_unavailable', `the task could not be scheduled: ${err.message}`);
}

async function startSyncOrRemove(deps: SubmitDeps, project: ProjectRow, task: TaskRow, sync: NonNullable<SubmitOrigin['sync']>): Promise<void> {
  try {
    const { eagerlyStarted } = await startSyncRun(deps, task, sync.eager, project);
    sync.started?.(eagerlyStarted);
  } catch (err) {
    await deleteUnstarted(deps.db, task.id);
    throw new DomainError('temporal_unavailable', `the task could not be scheduled: ${(err as Error).message}`);
  }
}
