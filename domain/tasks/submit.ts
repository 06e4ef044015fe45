// Accepting a task: allow-lists, submit rate, de-duplication, then the row and its workflow.
import type { ProjectRow, TaskRow } from '../../db/schema.js';
import { emailDomainAllowed } from '../callbacks/email-message.js';
import { settingsOf } from '../projects/projects.js';
import type { Compression, CsvDelimiter, CsvLineEnding, ExportType, Locale } from '../../model/task.js';
import type { StoredSettings } from '../../model/project-settings.js';
import { newId, randomToken, sha256Hex } from '../../platform/crypto.js';
import { DomainError } from '../errors.js';
import { type StoredSheet, taskSheets } from '../staging/sheets.js';
import { checkOutgoingUrl } from '../source/hosts.js';
import { destinationRefusal } from '../destinations/refusal.js';
import { findDestination } from '../destinations/store.js';
import type { Admission, AdmissionDeps, Origin } from './admission/index.js';
import { getTask } from './queries.js';
import type { RateState } from './rate.js';

export interface SubmitInput {
  source_url: string;
  operator_id: string;
  type: ExportType;
  /** csv and jsonl: the file is compressed as it is written. */
  compression?: Compression | undefined;
  /** csv: whether the file starts with a UTF-8 byte order mark (absent: it does). */
  csv_bom?: boolean | undefined;
  /** csv: the field separator (tab: a .tsv file) and the record separator; absent: the project's, else comma and CR LF. */
  csv_delimiter?: CsvDelimiter | undefined;
  csv_line_ending?: CsvLineEnding | undefined;
  /** excel: a filter on each sheet's table header (absent: there is one). */
  autofilter?: boolean | undefined;
  /** csv and excel: date-times with a zone are written as wall-clock time in this IANA zone. */
  time_zone?: string | undefined;
  file_name?: string | undefined;
  title?: string | undefined;
  summary?: string | undefined;
  template?: unknown;
  header?: unknown;
  footer?: unknown;
  /** Excel: charts over the sheet's rows (domain/formats/charts.ts). */
  charts?: unknown;
  /** An Excel workbook of several sheets; source_url is then the first sheet's. */
  sheets?: StoredSheet[] | undefined;
  max_file_rows?: number | undefined;
  max_file_bytes?: number | undefined;
  callback?: string | undefined;
  /** One of the project's destinations: the files are delivered there before the task succeeds. */
  destination_id?: string | undefined;
  destination_path?: string | undefined;
  /** Addresses e-mailed when the task ends (each at one of the project's email_domains). */
  notify_email?: string[] | undefined;
  locale?: Locale | undefined;
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
  input.notify_email?.forEach((address, i) => checkRecipient(project, address, `notify_email.${i}`));
}

/** An address against the project's email_domains as they are now (also checked again before each send). */
export function checkRecipient(project: Pick<ProjectRow, 'settings'>, address: string, field = 'notify_email'): void {
  if (emailDomainAllowed(settingsOf(project).email_domains, address)) return;
  const message = `${field} is at a domain that is not on the project's email_domains`;
  throw DomainError.invalid(field, message, message, 'email_domain_not_allowed');
}

/** The destination is the project's and its endpoint (or SFTP host) still allowed; a path needs a destination. */
export async function checkDestination(db: SubmitDeps['db'], project: ProjectRow, input: Pick<SubmitInput, 'destination_id' | 'destination_path'>): Promise<void> {
  if (!input.destination_id) {
    if (input.destination_path !== undefined) throw DomainError.invalid('destination_path', 'needs a destination_id');
    return;
  }
  const row = await findDestination(db, project.id, input.destination_id);
  if (!row) throw DomainError.invalid('destination_id', 'no such destination in this project');
  const refusal = destinationRefusal(row, project.destinationHosts);
  if (refusal) throw DomainError.invalid('destination_id', refusal, `destination_id: ${refusal}`, 'destination_host_not_allowed');
}

export interface Submitted {
  task: TaskRow;
  created: boolean;
  /** The submit quota after this submission (absent for a de-duplicated answer, which is free). */
  rate?: RateState;
}

/**
 * Checks a submission, has admission accept its task (or finds the task it repeats) and has its
 * origin start the run: how depends on who submits (the API, a sync request, a schedule's run).
 */
export async function submitTask(admission: Admission, project: ProjectRow, input: SubmitInput, idempotencyKey: string | undefined, origin: Origin): Promise<Submitted> {
  const { db } = admission;
  checkHosts(project, input);
  await checkDestination(db, project, input);
  const requestHash = sha256Hex(canonical(input));
  // A duplicate that vanishes before it is read (its run could not start) is looked for again.
  for (let attempt = 0; ; attempt++) {
    const a = await admission.accept(newTask(project, input, requestHash, idempotencyKey, origin.scheduleId), origin.outsideQueue);
    if (a.kind === 'inserted') {
      await origin.start({ task: a.task, project, dispatch: a.dispatch });
      return { task: a.task, created: true, rate: a.rate };
    }
    const dup = a.kind === 'duplicate' ? a : await admission.duplicateOf(project.id, requestHash, idempotencyKey ?? null);
    if (dup && dup.requestHash !== requestHash) throw keyReused();
    const existing = dup && (await getTask(db, dup.taskId));
    if (existing) return { task: existing, created: false };
    if (a.kind === 'lost' && idempotencyKey) throw keyReused();
    if (attempt === 2) throw new DomainError('temporal_unavailable', 'the task could not be recorded: an identical one kept appearing and vanishing');
  }
}

/** The row a submission inserts (a preview renders one it never stores). */
export function newTask(project: ProjectRow, input: SubmitInput, requestHash: string, idempotencyKey: string | undefined, scheduleId: string | null = null) {
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
      charts: input.charts,
      sheets: input.sheets,
      max_file_rows: input.max_file_rows,
      max_file_bytes: input.max_file_bytes,
      destination_id: input.destination_id,
      destination_path: input.destination_path,
      notify_email: input.notify_email,
      locale: input.locale,
      compression: input.compression,
      ...csvDialect(input, settingsOf(project)),
      autofilter: input.autofilter,
      time_zone: input.time_zone,
    },
    idempotencyKey: idempotencyKey ?? null,
    requestHash,
    scheduleId,
    // Set here rather than by the database: list cursors compare it at millisecond precision.
    createdAt: new Date(),
  };
}

/**
 * A csv task's dialect: its own, else the project's defaults as they are at submission. Fixed on
 * the task then: its pages are encoded as they arrive, so a later change of the project's
 * defaults must not reach a retry or resume of it (the staged pages would mix two dialects).
 */
function csvDialect(input: SubmitInput, settings: Pick<StoredSettings, 'csv_delimiter' | 'csv_line_ending' | 'csv_bom'>) {
  if (input.type !== 'csv') return {};
  return {
    csv_bom: input.csv_bom ?? settings.csv_bom,
    csv_delimiter: input.csv_delimiter ?? settings.csv_delimiter,
    csv_line_ending: input.csv_line_ending ?? settings.csv_line_ending,
  };
}

const keyReused = () => {
  const message = 'this Idempotency-Key was used with a different request body';
  return DomainError.invalid('Idempotency-Key', message, message, 'idempotency_key_reused');
};
