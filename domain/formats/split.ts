// How big one output file may get before the export is split into parts (plus a zip of them all).
// Per task (tasks.options, from the submission) over per project (its settings) over defaults.
import { fileBytes, fileRows, type StoredSettings } from '../../model/project-settings.js';
import type { ExportType } from '../../model/task.js';
import type { TaskOptions } from '../../model/task-options.js';
import { DomainError } from '../errors.js';

export const SPLIT_DEFAULTS = {
  // The design: an Excel file holds at most 800,000 rows and 10 MB.
  excel: { maxRows: 800_000, maxBytes: 10 * 1024 * 1024 },
  // CSV has no row limit of its own; 512 MiB keeps any one download manageable.
  csv: { maxRows: Number.MAX_SAFE_INTEGER, maxBytes: 512 * 1024 * 1024 },
} as const;

/** Fields of POST /v1/tasks: limits for this task's files. */
export const taskSplitFields = { max_file_rows: fileRows.optional(), max_file_bytes: fileBytes.optional() };

export interface SplitLimits {
  maxRows: number;
  maxBytes: number;
  /** The most parts one task may have (MAX_PARTS); unset: no cap (benches, samples). */
  maxParts?: number | undefined;
}

/** JSON Lines and Parquet files are split by the CSV limits (a project sets one pair for its data files). */
const family = (type: ExportType): 'excel' | 'csv' => (type === 'excel' ? 'excel' : 'csv');

export function resolveSplit(type: ExportType, options: Pick<TaskOptions, 'max_file_rows' | 'max_file_bytes'>, settings: StoredSettings, maxParts?: number): SplitLimits {
  const f = family(type);
  const d = SPLIT_DEFAULTS[f];
  return {
    maxRows: options.max_file_rows ?? settings[`${f}_max_file_rows`] ?? d.maxRows,
    maxBytes: options.max_file_bytes ?? settings[`${f}_max_file_bytes`] ?? d.maxBytes,
    maxParts,
  };
}

function tooManyParts(maxParts: number, why: string): DomainError {
  return new DomainError('too_many_parts', `${why}; a task may have at most ${maxParts} files (MAX_PARTS): raise max_file_rows or max_file_bytes, or narrow the filters in source_url`);
}

/**
 * Before part `n` (1-based) is opened: past the cap the render stops, before that file is written.
 * The byte limit's count is known only as the parts fill; every writer asks here.
 */
export function checkPartNumber(n: number, limits: SplitLimits): void {
  if (limits.maxParts !== undefined && n > limits.maxParts) throw tooManyParts(limits.maxParts, `the export needs more than ${limits.maxParts} files by its split limits`);
}

/**
 * As soon as the rows are known (the probe's total, before any page is fetched): a part holds at
 * most maxRows rows, so `rows` need at least ⌈rows / maxRows⌉ parts in every format. Only a count
 * certainly over the cap is refused; the byte limit is left to checkPartNumber.
 */
export function checkPartsAhead(rows: number, limits: SplitLimits): void {
  const least = Math.ceil(rows / limits.maxRows);
  if (limits.maxParts !== undefined && least > limits.maxParts) {
    throw tooManyParts(limits.maxParts, `${rows} rows at ${limits.maxRows} a file make ${least} files`);
  }
}
