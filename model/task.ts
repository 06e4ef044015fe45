// The task's vocabulary: statuses, stages and the shapes stored on a task row. Pure: the workflow
// bundle, the database schema and the API all import it.

/** Not ended: a de-duplication target, shown to `*` subscribers, cancellable. */
export const ACTIVE_STATUSES = ['queued', 'running', 'paused'] as const;
/** A run may finish a task only from these (a paused or cancelled task is never revived). */
export const RUNNABLE_STATUSES = ['queued', 'running'] as const;
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled', 'expired'] as const;
export const TASK_STATUSES = [...ACTIVE_STATUSES, ...TERMINAL_STATUSES] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** A failed or cancelled task may run again under the same id. */
export const RETRYABLE_STATUSES = ['failed', 'cancelled'] as const;

export const TASK_STAGES = ['probing', 'fetching', 'rendering', 'uploading', 'delivering', 'notifying'] as const;
export type TaskStage = (typeof TASK_STAGES)[number];

export const EXPORT_TYPES = ['csv', 'excel', 'jsonl', 'parquet'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];
/** Types written as lines of text, which a stream compressor may wrap (docs/formats.md). */
export const COMPRESSIBLE_TYPES = ['csv', 'jsonl'] as const;
export const COMPRESSIONS = ['gzip', 'zstd'] as const;
/** The languages of the operator's center and of the e-mails. */
export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];
export type Compression = (typeof COMPRESSIONS)[number];
/** A CSV file's field separator: comma, semicolon (locales whose decimal mark is a comma), tab (a .tsv file), pipe. */
export const CSV_DELIMITERS = [',', ';', '\t', '|'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];
/** A CSV file's record separator: CR LF (RFC 4180, the default) or LF. */
export const CSV_LINE_ENDINGS = ['crlf', 'lf'] as const;
export type CsvLineEnding = (typeof CSV_LINE_ENDINGS)[number];

const terminal = new Set<string>(TERMINAL_STATUSES);
export const isTerminal = (status: string): boolean => terminal.has(status);

/** Fetch progress per lane, written by each lane under its own key. */
export type LaneProgress = Record<string, { pages: number; rows: number }>;

/** A published file of a succeeded task. */
export interface StoredFile {
  name: string;
  key: string;
  bytes: number;
  rows: number;
  sha256: string;
  /** Where delivery wrote it in the customer's bucket (`s3://bucket/key`); absent without a destination. */
  delivered_to?: string;
}

/**
 * The ids of a run's end notifications: the callback's and the e-mails' workflows and the callback's
 * webhook-id. The export run (workflows/export-end.ts) and the reconciler (domain/tasks/reconcile.ts)
 * both start them by these ids, so one end is delivered once whoever starts it.
 */
export const callbackWorkflowId = (taskId: string, run: number): string => `${taskId}.callback.${run}`;
export const emailWorkflowId = (taskId: string, run: number): string => `${taskId}.email.${run}`;
export const webhookIdOf = (taskId: string, run: number): string => `msg_${taskId}_${run}`;
