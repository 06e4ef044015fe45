// A project's settings: the one schema that validates them at the API, types the database column
// and fills defaults for rows written before a setting existed.
import { z } from 'zod';
import { maskColumnsSchema } from './mask.js';
import { CSV_DELIMITERS, CSV_LINE_ENDINGS } from './task.js';

/** Excel's hard limit of rows on one sheet. */
export const EXCEL_SHEET_ROWS = 1_048_576;
// Below this an xlsx part would be mostly its fixed overhead and compressor allowance (domain/formats/xlsx/workbook.ts).
export const MIN_FILE_BYTES = 1024 * 1024;
export const MAX_FILE_BYTES = 2 ** 31;

/**
 * An origin a page framing the operator's center may have: https, a host name or IPv4, a port; or
 * http on the loopback (localhost, 127.0.0.1), which browsers count as secure, for development.
 */
export const EMBED_ORIGIN = /^(?:https:\/\/[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|http:\/\/(?:localhost|127\.0\.0\.1))(?::\d{1,5})?$/;

/**
 * A domain name of the project's email_domains: labels of letters, digits and hyphens, at least two.
 * Its length (at most 253) is the schema's max, not a lookahead here: a generator of the API
 * document's examples cannot build strings to a lookahead, only filter them.
 */
export const EMAIL_DOMAIN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** Addresses a project's schedule alerts go to. */
export const MAX_ALERT_EMAILS = 20;

export const fileRows = z.number().int().min(1).max(EXCEL_SHEET_ROWS);
export const fileBytes = z.number().int().min(MIN_FILE_BYTES).max(MAX_FILE_BYTES);

/** A quota: a whole number up to 2^53 - 1 (JSON's exact integers), or null for none. */
const quota = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().default(null);

/** Kept in projects.settings (JSON): knobs read only where they apply, added without a migration. */
export const storedSettingsSchema = z.object({
  // Politeness towards the project's source, across all its tasks, lanes and workers (domain/source/limiter.ts).
  source_max_concurrency: z.number().int().min(1).max(64).default(8),
  source_rps: z.number().positive().max(10_000).nullable().default(null),
  // Retries of a failed source request (workflows/profiles.ts): attempts per page, the longest wait
  // between two, and whether the waits grow (doubling up to that longest) or are all that longest.
  source_retry_max_attempts: z.number().int().min(1).max(20).default(5),
  source_retry_max_interval_seconds: z.number().int().min(1).max(3600).default(60),
  source_retry_backoff: z.enum(['exponential', 'uniform']).default('exponential'),
  // Defaults for the project's tasks' output files (domain/formats/split.ts).
  excel_max_file_rows: fileRows.optional(),
  excel_max_file_bytes: fileBytes.optional(),
  csv_max_file_rows: fileRows.optional(),
  csv_max_file_bytes: fileBytes.optional(),
  // The CSV dialect of the project's csv tasks that do not name their own (filled in at submission).
  csv_delimiter: z.enum(CSV_DELIMITERS).optional(),
  csv_line_ending: z.enum(CSV_LINE_ENDINGS).optional(),
  csv_bom: z.boolean().optional(),
  // Recurring exports (schedules) the project may have at once; their runs are ordinary tasks.
  max_schedules: z.number().int().min(0).max(1000).default(20),
  // Quotas (docs/usage.md#quotas): null, the default, is none. Monthly ones count the output of
  // tasks that succeeded this UTC calendar month; stored bytes, the project's live files now. A
  // submission once one is reached is refused (429 quota_exceeded); tasks already accepted finish.
  quota_monthly_rows: quota,
  quota_monthly_bytes: quota,
  quota_stored_bytes: quota,
  // Who may frame the operator's center (GET /operator): its CSP frame-ancestors. Empty: nobody
  // (docs/adr/0030-embedding-the-operator-center.md). Origins only: a path would be ignored by
  // browsers, and http: (but on the loopback) is refused: a host page on plain HTTP shows the token to the network.
  embed_origins: z
    .array(z.string().max(300).regex(EMBED_ORIGIN, 'must be an origin: https://host[:port] (or http://localhost[:port], http://127.0.0.1[:port])'))
    .max(20)
    .transform((list) => [...new Set(list.map((o) => o.toLowerCase()))])
    // The default outermost: PATCH's schema drops defaults it finds there (a field left out keeps its value).
    .default([]),
  // With direct downloads (S3, docs/adr/0015-direct-downloads.md) files[].url is a presigned URL the
  // bucket answers itself, so its downloads cannot be recorded; true makes it the API's signed link,
  // whose every download is (docs/downloads.md).
  downloads_through_api: z.boolean().default(false),
  // Domains the tasks' notify_email addresses may be at (exactly, without subdomains). Empty: no
  // task of the project may ask for e-mail (422 email_domain_not_allowed).
  email_domains: z
    .array(z.string().max(253).regex(EMAIL_DOMAIN, 'must be a domain name, e.g. example.com'))
    .max(50)
    .transform((list) => [...new Set(list.map((d) => d.toLowerCase()))])
    .default([]),
  // Columns masked in every task of the project, whatever its template says (docs/formats.md#masked-columns).
  mask_columns: maskColumnsSchema.default({}),
  // Who hears of a schedule that paused itself after failing (domain/schedules/alerts.ts): one mail
  // each, addresses at one of email_domains; and a signed schedule.paused event POSTed to a URL
  // whose host is on callback_hosts. Both checked when set and again before each delivery.
  alert_emails: z
    .array(z.email('must be an e-mail address').max(254))
    .max(MAX_ALERT_EMAILS)
    .transform((list) => [...new Set(list.map((a) => a.toLowerCase()))])
    .default([]),
  alert_callback: z.string().max(4096).url('must be an http(s) URL').nullable().default(null),
});

/** Every setting of a project: the columns (read on hot paths) and the stored settings. */
export const projectSettingsSchema = storedSettingsSchema.extend({
  retention_hours: z.number().int().min(1).max(24 * 365).default(168),
  max_running_tasks: z.number().int().min(1).max(100).default(4),
  submit_per_minute: z.number().int().min(1).max(10_000).default(60),
});

export type StoredSettings = z.infer<typeof storedSettingsSchema>;
/** What the column holds: written from a parsed StoredSettings, read back through parseStoredSettings. */
export type StoredSettingsJson = z.input<typeof storedSettingsSchema>;

/** The stored settings with defaults filled in; a value no longer valid falls back to its default. */
export function parseStoredSettings(json: StoredSettingsJson | Record<string, unknown>): StoredSettings {
  const parsed = storedSettingsSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const bad = new Set(parsed.error.issues.map((i) => String(i.path[0])));
  return storedSettingsSchema.parse(Object.fromEntries(Object.entries(json).filter(([k]) => !bad.has(k))));
}
