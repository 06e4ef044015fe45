// How big one output file may get before the export is split into parts (plus a zip of them all).
// Per task (tasks.options, from the submission) over per project (its settings) over defaults.
import { fileBytes, fileRows, type StoredSettings } from '../../model/project-settings.js';
import type { ExportType } from '../../model/task.js';

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
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);

/** JSON Lines and Parquet files are split by the CSV limits (a project sets one pair for its data files). */
const family = (type: ExportType): 'excel' | 'csv' => (type === 'excel' ? 'excel' : 'csv');

export function resolveSplit(type: ExportType, options: Record<string, unknown>, settings: StoredSettings): SplitLimits {
  const f = family(type);
  const d = SPLIT_DEFAULTS[f];
  return {
    maxRows: num(options.max_file_rows) ?? settings[`${f}_max_file_rows`] ?? d.maxRows,
    maxBytes: num(options.max_file_bytes) ?? settings[`${f}_max_file_bytes`] ?? d.maxBytes,
  };
}
