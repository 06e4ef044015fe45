// The activity contract: one input and one output object per activity. Workflows proxy this
// interface and activities/ implements it, so neither imports the other. Only keys, counts and
// checksums cross it: rows never travel through workflow history.
import type { TaskErrorCode } from './errors.js';
import type { SubmitRunInput, SubmitRunOutput } from './schedule.js';
import type { StoredFile, TaskStage, TaskStatus } from './task.js';

export interface TaskRef {
  taskId: string;
}

/** Milliseconds the run spent in each stage, measured by the workflow (dc_stage_duration_seconds). */
export interface StageTiming {
  stages?: Partial<Record<TaskStage, number>>;
}

export interface Ok {
  ok: boolean;
}

export interface ProbeOutput {
  /** All sheets together. */
  total: number;
  pagesTotal: number;
  pageSize: number;
  /** Each sheet's share, for a workbook of several sheets (absent for one). */
  sheets?: Array<{ total: number; pagesTotal: number }>;
}

export interface FetchPagesInput {
  taskId: string;
  /** Which sheet's source (a workbook of several sheets); absent for sheet 0. */
  sheet?: number;
  lane: number;
  laneFromPage: number;
  fromPage: number;
  /** Exclusive. */
  toPage: number;
  /** Failed attempts already spent on fromPage by an earlier call, and the budget per page. */
  failedAttempts?: number;
  maxAttempts?: number;
}

export interface FetchPagesOutput {
  pages: number;
  rows: number;
  /**
   * Set when a transient error came after this attempt had stored pages: the workflow waits
   * retryAfterMs and calls again from nextPage, so every page gets the full retry budget rather
   * than a whole chunk of pages sharing five attempts.
   */
  nextPage?: number;
  retryAfterMs?: number;
}

/** A rendered output waiting in the task's staging prefix. */
export interface RenderedFile {
  name: string;
  key: string;
  bytes: number;
  rows: number;
  sha256: string;
}

/** Pages [from, to) not staged yet, for a run resuming a paused export. */
export interface StagedGaps {
  total: number;
  pageSize: number;
  /** `sheet` is set for the sheets after the first of a workbook of several. */
  gaps: Array<{ from: number; to: number; sheet?: number }>;
}

/** The answer to the `pause` update of an export workflow. */
export interface PauseResult {
  /** What the run had done when it stopped: pages staged for the resume. */
  pagesStaged: boolean;
}

/** The end of a task: what its own callback and e-mails tell. */
export type TaskEndEvent = 'task.succeeded' | 'task.failed';

/**
 * What a callback or e-mail delivery tells: a task's end, or (`schedule.paused`) that the task's
 * failure paused its schedule: then it goes to the project's alert_callback / alert_emails, and
 * the same delivery workflows carry it (domain/schedules/alerts.ts).
 */
export type CallbackEvent = TaskEndEvent | 'schedule.paused';

export interface DeliverInput {
  taskId: string;
  run: number;
  event: CallbackEvent;
  /** Standard Webhooks message id: the same on every attempt, so receivers can de-duplicate. */
  webhookId: string;
  /** A schedule.paused event: the failed runs in a row when the schedule paused. */
  failures?: number;
}

export interface DeliverOutput {
  delivered: boolean;
  attempt: number;
  statusCode: number | null;
  reason?: string;
}

/** The e-mails of one task end (workflows/email.ts): one per recipient, `recipients` of them. */
export interface EmailInput {
  taskId: string;
  run: number;
  event: CallbackEvent;
  recipients: number;
  /** A schedule.paused alert's facts, fixed when the schedule paused; `recipients` is `alert.to.length`. */
  alert?: PausedAlertFacts;
}

/**
 * What a schedule's pause alert says and to whom, fixed at the pause: the project's alert_emails
 * then (each still checked against email_domains before its send) and the failed runs in a row.
 * The e-mail workflow reads only `recipients`; the alert's send reads these from the workflow's
 * start input (activities/workflow-start-input.ts), so a later edit of the list changes nothing.
 */
export interface PausedAlertFacts {
  to: string[];
  failures: number;
}

/** One recipient's mail: the task's notify_email[index] (a schedule.paused alert: its workflow input's alert.to[index]); the address itself stays out of this activity's input. */
export interface SendEmailInput {
  taskId: string;
  run: number;
  event: CallbackEvent;
  index: number;
}

export interface SendEmailOutput {
  /** skipped: nothing to send any more (the task was retried, or is gone). */
  result: 'delivered' | 'skipped';
  attempt: number;
  reason?: string;
}

/** Attempts of one e-mail (workflows/profiles.ts's email profile; the activity leaves next_attempt_at empty on the last). */
export const EMAIL_MAX_ATTEMPTS = 10;

/** Attempts of one delivery (workflows/profiles.ts's deliver profile; the last aborts an upload it leaves open). */
export const DELIVER_MAX_ATTEMPTS = 10;

export interface Activities {
  // task state (activities/task-state.ts)
  /** Not proceeding: the task left the queue before its run began, `status` says how. */
  startTask(input: TaskRef): Promise<{ proceed: true } | { proceed: false; status: TaskStatus }>;
  setStage(input: TaskRef & { stage: TaskStage }): Promise<Ok>;
  completeTask(input: TaskRef & StageTiming & { files: StoredFile[] }): Promise<Ok>;
  /** `files`: a failed delivery's published files, kept downloadable until they expire. */
  failTask(input: TaskRef & StageTiming & { code: TaskErrorCode; message: string; files?: StoredFile[] }): Promise<Ok>;
  markCancelled(input: TaskRef & StageTiming): Promise<Ok>;
  /** running → paused, the slot freed for the project's next task. */
  pauseTask(input: TaskRef & StageTiming): Promise<Ok>;
  /**
   * A sync export over the sync row limit: running → queued, its probe kept (like a pause with
   * nothing fetched), admitted at once if its project has a free slot (workflows/sync-export.ts).
   */
  requeueTask(input: TaskRef): Promise<{ admitted: boolean }>;
  // the source (activities/fetch.ts, activities/fetch-pages.ts)
  probeSource(input: TaskRef): Promise<ProbeOutput>;
  fetchPages(input: FetchPagesInput): Promise<FetchPagesOutput>;
  // staged data (activities/staging.ts)
  verifyStaged(input: TaskRef): Promise<{ pages: number }>;
  stagedGaps(input: TaskRef): Promise<StagedGaps>;
  publishFiles(input: TaskRef & { outputs: RenderedFile[] }): Promise<{ files: StoredFile[] }>;
  discardStaged(input: TaskRef & { files?: boolean }): Promise<{ ok: true }>;
  // rendering (activities/render.ts)
  /** Any type's files, the renderer picked by the task's type. */
  renderFile(input: TaskRef): Promise<{ outputs: RenderedFile[] }>;
  // delivery into the task's destination (activities/deliver.ts): the files with delivered_to
  deliverFiles(input: TaskRef & { files: StoredFile[] }): Promise<{ files: StoredFile[] }>;
  // expiry and admission's sweep (activities/cleanup.ts)
  /** Every task past its retention, in batches of CLEANUP_BATCH_SIZE, heartbeating the running total. */
  expireTasks(input: Record<string, never>): Promise<{ expired: number }>;
  /** Admission's sweep and the reconciler: runs started, and tasks ended whose run had ended without saying so. */
  sweepAdmission(input: Record<string, never>): Promise<{ started: number; ended: number }>;
  // callbacks (activities/notify.ts)
  deliverCallback(input: DeliverInput): Promise<DeliverOutput>;
  // e-mail (activities/email.ts)
  sendTaskEmail(input: SendEmailInput): Promise<SendEmailOutput>;
  // schedules (activities/schedules.ts)
  submitScheduledRun(input: SubmitRunInput): Promise<SubmitRunOutput>;
}
