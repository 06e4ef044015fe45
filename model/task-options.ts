// A task's stored options (tasks.options): what a submission asked beyond the columns, read by the
// run, the renderers, delivery and the e-mails. One schema types the column and parses it where a
// row is read (db/schema.ts), so no reader casts. Written only from a validated request
// (domain/tasks/submit.ts newTask); the request's own rules are api/schemas/tasks.ts's.
import { z } from 'zod';
import { COMPRESSIONS, CSV_DELIMITERS, CSV_LINE_ENDINGS, LOCALES } from './task.js';

/**
 * What a worksheet is laid out by. The template and the areas are checked where they are used,
 * beside the ones a source may send (domain/formats/excel-layout.ts), so they stay unknown here.
 */
const layoutShape = {
  title: z.string().optional(),
  summary: z.string().optional(),
  template: z.unknown().optional(),
  header: z.unknown().optional(),
  footer: z.unknown().optional(),
  charts: z.unknown().optional(),
};

/** One entry of an Excel task's `sheets`: its own source and layout. */
const storedSheetSchema = z.object({ source_url: z.string(), name: z.string().optional(), ...layoutShape });

export const taskOptionsSchema = z.object({
  ...layoutShape,
  sheets: z.array(storedSheetSchema).optional(),
  max_file_rows: z.number().int().positive().optional(),
  max_file_bytes: z.number().int().positive().optional(),
  destination_id: z.string().optional(),
  destination_path: z.string().optional(),
  notify_email: z.array(z.string()).optional(),
  locale: z.enum(LOCALES).optional(),
  compression: z.enum(COMPRESSIONS).optional(),
  /** A CSV file starts with a UTF-8 byte order mark unless this is false (Excel reads UTF-8 by it). */
  csv_bom: z.boolean().optional(),
  /** The CSV dialect (absent: comma and CR LF); the project's defaults are filled in at submission. */
  csv_delimiter: z.enum(CSV_DELIMITERS).optional(),
  csv_line_ending: z.enum(CSV_LINE_ENDINGS).optional(),
  /** Excel: a filter on the table header of each sheet unless this is false. */
  autofilter: z.boolean().optional(),
  /** An IANA zone (checked at the API): date-times with a zone are written as wall-clock time there (CSV, xlsx). */
  time_zone: z.string().optional(),
});

export type TaskOptions = z.infer<typeof taskOptionsSchema>;
export type StoredSheet = z.infer<typeof storedSheetSchema>;
export type SheetLayout = Pick<TaskOptions, keyof typeof layoutShape>;

/** The stored options as the run reads them; a value that no longer fits is dropped (its default applies). */
export function parseTaskOptions(json: unknown): TaskOptions {
  const parsed = taskOptionsSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const bad = new Set(parsed.error.issues.map((i) => String(i.path[0])));
  const kept = json && typeof json === 'object' ? Object.entries(json).filter(([k]) => !bad.has(k)) : [];
  return taskOptionsSchema.parse(Object.fromEntries(kept));
}
