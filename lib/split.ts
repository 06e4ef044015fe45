// How big one output file may get before the export is split into parts (plus a zip of them all).
// Per task (tasks.options, from the submission) over per project (projects.settings) over defaults.
import { z } from 'zod';

/** Excel's hard limit of rows on one sheet. */
export const EXCEL_SHEET_ROWS = 1_048_576;
// Below this an xlsx part would be mostly its fixed overhead and compressor allowance (lib/xlsx/workbook.ts).
export const MIN_FILE_BYTES = 1024 * 1024;
export const MAX_FILE_BYTES = 2 ** 31;

export const SPLIT_DEFAULTS = {
  // The design: an Excel file holds at most 800,000 rows and 10 MB.
  excel: { maxRows: 800_000, maxBytes: 10 * 1024 * 1024 },
  // CSV has no row limit of its own; 512 MiB keeps any one download manageable.
  csv: { maxRows: Number.MAX_SAFE_INTEGER, maxBytes: 512 * 1024 * 1024 },
} as const;

const rows = z.number().int().min(1).max(EXCEL_SHEET_ROWS);
const bytes = z.number().int().min(MIN_FILE_BYTES).max(MAX_FILE_BYTES);

/** Fields of POST /v1/tasks: limits for this task's files. */
export const taskSplitFields = { max_file_rows: rows.optional(), max_file_bytes: bytes.optional() };

/** Fields of POST /v1/projects, kept in projects.settings: the project's defaults for its tasks. */
export const projectSplitFields = {
  excel_max_file_rows: rows.optional(),
  excel_max_file_bytes: bytes.optional(),
  csv_max_file_rows: rows.optional(),
  csv_max_file_bytes: bytes.optional(),
};
const SPLIT_KEYS = Object.keys(projectSplitFields) as (keyof typeof projectSplitFields)[];

/** The split settings given at project creation, for projects.settings. */
export function splitSettingsOf(body: Partial<Record<(typeof SPLIT_KEYS)[number], number>>): Record<string, number> {
  return Object.fromEntries(SPLIT_KEYS.flatMap((k) => (body[k] === undefined ? [] : [[k, body[k]]])));
}

/** The limits a project's tasks get, for the project JSON (null: no limit). */
export function splitSettingsJson(settings: Record<string, unknown>) {
  const excel = resolveSplit('excel', {}, settings);
  const csv = resolveSplit('csv', {}, settings);
  return {
    excel_max_file_rows: excel.maxRows,
    excel_max_file_bytes: excel.maxBytes,
    csv_max_file_rows: csv.maxRows === Number.MAX_SAFE_INTEGER ? null : csv.maxRows,
    csv_max_file_bytes: csv.maxBytes,
  };
}

export interface SplitLimits {
  maxRows: number;
  maxBytes: number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);

export function resolveSplit(type: 'csv' | 'excel', options: Record<string, unknown>, settings: Record<string, unknown>): SplitLimits {
  const d = SPLIT_DEFAULTS[type];
  return {
    maxRows: num(options.max_file_rows) ?? num(settings[`${type}_max_file_rows`]) ?? d.maxRows,
    maxBytes: num(options.max_file_bytes) ?? num(settings[`${type}_max_file_bytes`]) ?? d.maxBytes,
  };
}
