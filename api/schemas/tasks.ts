// The task requests as zod schemas: what the handlers validate with, and what the API reference
// (/openapi.json) and the client's types are generated from.
import { z } from '@hono/zod-openapi';
import { FILE_NAME_USABLE, sanitizeFileName } from '../../domain/formats/file-name.js';
import { taskSplitFields } from '../../domain/formats/split.js';
import { chartProblems, chartsSchema, MAX_CHARTS } from '../../domain/formats/charts.js';
import { areaSchema } from '../../domain/formats/template/areas.js';
import { buildLayout } from '../../domain/formats/template/layout.js';
import { templateField } from '../../domain/formats/template/template.js';
import { sheetName } from '../../domain/formats/xlsx/sheet-names.js';
import { pathProblem } from '../../domain/destinations/path.js';
import { PREVIEW_DEFAULT_ROWS, PREVIEW_MAX_ROWS } from '../../domain/tasks/preview.js';
import { canonicalZone } from '../../domain/formats/time-zone.js';
import { COMPRESSIBLE_TYPES, COMPRESSIONS, CSV_DELIMITERS, CSV_LINE_ENDINGS, LOCALES, TASK_STAGES, TASK_STATUSES } from '../../model/task.js';
import { maxChars, requiredChars } from './chars.js';

/** Worksheets one Excel task may have (each one more source to fetch). */
export const MAX_SHEETS = 20;


/** A sheet name keeps a character that sheetName() neither replaces nor trims. */
const SHEET_NAME_USABLE = "[^\\[\\]:*?/\\\\\\u0000-\\u001f' \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]";

const sourceUrl = z.string().max(4096).url('must be an http(s) URL');
/** How many addresses one task may e-mail. */
export const MAX_NOTIFY_EMAILS = 5;
// zod's e-mail rule (no quoted local parts, no IP literals): an address nodemailer sends as written.
const emailAddress = z.email('must be an e-mail address').max(254).transform((a) => a.toLowerCase());
/** One address or a list; kept as a list without repeats. */
const notifyEmail = z
  .union([emailAddress, z.array(emailAddress).min(1).max(MAX_NOTIFY_EMAILS)])
  .transform((a) => [...new Set(Array.isArray(a) ? a : [a])])
  .openapi({ description: `Who is e-mailed when the task succeeds or fails: an address or up to ${MAX_NOTIFY_EMAILS}, each at one of the project's email_domains.` });
/** An IANA zone Intl knows, kept by its canonical name (asia/shanghai → Asia/Shanghai). */
const timeZoneField = z
  .string()
  .min(1)
  .max(64)
  .transform((name, ctx) => {
    const zone = canonicalZone(name);
    if (zone) return zone;
    ctx.addIssue({ code: 'custom', message: 'is not a time zone this server knows (an IANA name such as Asia/Shanghai or UTC)' });
    return z.NEVER;
  })
  .openapi({
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description: 'csv and excel only: date-times the source writes with a zone (Z or an offset) are written as wall-clock time in this IANA zone, e.g. Asia/Shanghai.',
    example: 'Asia/Shanghai',
  });

/** What a worksheet is laid out by; a task's own, or each entry of `sheets`. */
const layoutFields = {
  title: maxChars(500).optional(),
  summary: maxChars(20_000).optional(),
  template: templateField.optional(),
  header: areaSchema.optional(),
  footer: areaSchema.optional(),
  charts: chartsSchema.optional().openapi({
    description: `excel only: up to ${MAX_CHARTS} native charts over each file's data rows of the sheet. category and series name columns: a template leaf's name, else the keys of the source's rows (checked against the template when the request has one, else when the source first answers).`,
  }),
};

const sheetSchema = z.strictObject({
  source_url: sourceUrl,
  // Excel's rules for a sheet name: the forbidden characters become spaces, the length is refused.
  name: z
    .string()
    .max(31, 'at most 31 characters (Excel)')
    .openapi({ pattern: SHEET_NAME_USABLE, description: 'At most 31 characters; []:*?/\\ become spaces; needs another character than those, apostrophes and spaces.' }).transform((s) => sheetName(s, '')).pipe(z.string().min(1, 'has no usable characters')).optional(),
  ...layoutFields,
});

/**
 * The fields of POST /v1/tasks; the preview and schedules add theirs to these (withSheets). Strict:
 * a misspelt option (`page_sise`) is a 422 naming it, not a silently ignored default.
 */
export const submitFields = z.strictObject({
  source_url: sourceUrl,
  operator_id: requiredChars(128),
  type: z.enum(['csv', 'excel', 'xlsx', 'jsonl', 'parquet']).default('csv').transform((t) => (t === 'xlsx' ? 'excel' : t)),
  compression: z.enum(COMPRESSIONS).optional().openapi({ description: 'csv and jsonl only: the file is gzip- or zstd-compressed and its name gains .gz / .zst.' }),
  csv_bom: z.boolean().optional().openapi({ description: "csv only: whether the file starts with a UTF-8 byte order mark, by which Excel reads it as UTF-8 (default: the project's csv_bom, else true)." }),
  csv_delimiter: z
    .enum(CSV_DELIMITERS)
    .optional()
    .openapi({ description: "csv only: the field separator: comma, semicolon, tab (the file is named .tsv) or pipe (default: the project's csv_delimiter, else a comma)." }),
  csv_line_ending: z.enum(CSV_LINE_ENDINGS).optional().openapi({ description: "csv only: records end in CR LF or LF (default: the project's csv_line_ending, else crlf)." }),
  autofilter: z.boolean().optional().openapi({ description: 'excel only: a filter on the table header of every sheet (default true).' }),
  time_zone: timeZoneField.optional(),
  file_name: maxChars(200)
    .openapi({ pattern: FILE_NAME_USABLE.source, description: 'The download\'s name; needs a character other than dots and spaces.' })
    .transform(sanitizeFileName).pipe(z.string().min(1, 'has no usable characters')).optional(),
  ...layoutFields,
  sheets: z.array(sheetSchema).min(1).max(MAX_SHEETS).optional(),
  ...taskSplitFields,
  callback: z.string().max(4096).url('must be an http(s) URL').optional(),
  // Delivery into one of the project's destinations (docs/destinations.md); the path's placeholders
  // ({{date}}, {{task_id}}, {{file_name}}) are filled at delivery.
  destination_id: z.string().max(64).regex(/^dst_[A-Za-z0-9_-]{1,60}$/, 'must be a destination id (dst_…)').optional(),
  destination_path: maxChars(512)
    .superRefine((p, ctx) => {
      const problem = pathProblem(p);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .openapi({ description: 'Where each file goes under the destination\'s prefix; default {{task_id}}/{{file_name}}.' })
    .optional(),
  notify_email: notifyEmail.optional(),
  locale: z.enum(LOCALES).optional().openapi({ description: "The e-mails' language (default en)." }),
  page_size: z.number().int().min(100).max(1000).default(500),
  priority: z.number().int().min(1).max(5).default(3),
});

type Fields = z.infer<typeof submitFields>;
const LAYOUT_KEYS = ['title', 'summary', 'template', 'header', 'footer', 'charts'] as const;

type Layout = { template?: Fields['template']; charts?: Fields['charts'] };

/** Chart names the layout's own template lacks: a 422 chart_column_unknown each (without a template the source decides). */
function checkChartColumns(layout: Layout, at: (string | number)[], ctx: z.RefinementCtx): void {
  if (!layout.charts?.length || !layout.template) return;
  for (const p of chartProblems(layout.charts, buildLayout(layout.template, []))) {
    ctx.addIssue({ code: 'custom', path: [...at, ...p.path], message: p.message, params: { code: 'chart_column_unknown' } });
  }
}

/**
 * The rules of `sheets` (docs/excel.md): Excel only; the layout fields move into each sheet; the
 * task's source_url is the first sheet's (it may be left out). Names must differ (without case).
 */
export function withSheets<S extends z.ZodType<Fields & Record<string, unknown>>>(schema: S, stated: Record<string, unknown> = {}) {
  const fillSource = (body: unknown) => {
    const b = body as { source_url?: unknown; sheets?: Array<{ source_url?: unknown }> } | null;
    if (b && typeof b === 'object' && b.source_url === undefined && Array.isArray(b.sheets) && b.sheets[0] && typeof b.sheets[0] === 'object') {
      return { ...b, source_url: b.sheets[0].source_url };
    }
    return body;
  };
  const checked = schema.superRefine((t, ctx) => {
    if (t.compression && !(COMPRESSIBLE_TYPES as readonly string[]).includes(t.type)) {
      // Its own code: a client can tell "this format is compressed already" from a typo.
      ctx.addIssue({ code: 'custom', path: ['compression'], message: `${t.type} files are compressed already; compression is for csv and jsonl`, params: { code: 'compression_unsupported' } });
    }
    if (t.csv_bom !== undefined && t.type !== 'csv') ctx.addIssue({ code: 'custom', path: ['csv_bom'], message: `${t.type} files have no byte order mark; csv_bom is for csv` });
    if (t.charts !== undefined && t.type !== 'excel') ctx.addIssue({ code: 'custom', path: ['charts'], message: `charts are drawn in Excel workbooks; ${t.type} files have none` });
    checkChartColumns(t, [], ctx);
    t.sheets?.forEach((s, i) => checkChartColumns(s, ['sheets', i], ctx));
    for (const key of ['csv_delimiter', 'csv_line_ending'] as const) {
      if (t[key] !== undefined && t.type !== 'csv') ctx.addIssue({ code: 'custom', path: [key], message: `${t.type} files have no delimiters or lines of fields; ${key} is for csv` });
    }
    if (t.autofilter !== undefined && t.type !== 'excel') ctx.addIssue({ code: 'custom', path: ['autofilter'], message: `${t.type} files have no table header to filter; autofilter is for excel` });
    if (t.time_zone !== undefined && t.type !== 'csv' && t.type !== 'excel') {
      ctx.addIssue({ code: 'custom', path: ['time_zone'], message: `${t.type} files keep each date-time's instant; time_zone is for csv and excel` });
    }
    // An empty list is refused by its own min(1); the rules below need a first sheet.
    if (!t.sheets?.[0]) return;
    if (t.type !== 'excel') ctx.addIssue({ code: 'custom', path: ['sheets'], message: 'several sheets need type "excel"' });
    for (const key of LAYOUT_KEYS) {
      if (t[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'with sheets, give it in each sheet of sheets[]' });
    }
    if (t.source_url !== t.sheets[0].source_url) ctx.addIssue({ code: 'custom', path: ['source_url'], message: 'with sheets, leave it out: each sheet has its own source_url' });
    const seen = new Set<string>();
    t.sheets.forEach((s, i) => {
      if (s.name === undefined) return;
      if (seen.has(s.name.toLowerCase())) ctx.addIssue({ code: 'custom', path: ['sheets', i, 'name'], message: 'another sheet has this name (Excel compares names without case)' });
      seen.add(s.name.toLowerCase());
    });
  });
  // The same rules as the document can state them (a source_url equal to the first sheet's is
  // the one thing it cannot say).
  const sheetRules = {
    ...stated,
    allOf: [
      { anyOf: [{ not: { required: ['compression'] } }, { required: ['compression'], properties: { type: { enum: [...COMPRESSIBLE_TYPES] } } }] },
      ...['csv_bom', 'csv_delimiter', 'csv_line_ending'].map((k) => ({ anyOf: [{ not: { required: [k] } }, { required: [k], properties: { type: { enum: ['csv'] } } }] })),
      { anyOf: [{ not: { required: ['charts'] } }, { required: ['charts', 'type'], properties: { type: { enum: ['excel', 'xlsx'] } } }] },
      { anyOf: [{ not: { required: ['autofilter'] } }, { required: ['autofilter', 'type'], properties: { type: { enum: ['excel', 'xlsx'] } } }] },
      { anyOf: [{ not: { required: ['time_zone'] } }, { required: ['time_zone'], properties: { type: { enum: ['csv', 'excel', 'xlsx'] } } }] },
    ],
    anyOf: [
      { not: { required: ['sheets'] } },
      { required: ['sheets', 'type'], properties: { type: { enum: ['excel', 'xlsx'] } }, not: { anyOf: LAYOUT_KEYS.map((k) => ({ required: [k] })) } },
    ],
  };
  return z.preprocess(fillSource, checked).openapi(sheetRules as never);
}

export const submitSchema = withSheets(submitFields);

/** POST /v1/tasks/preview: a task's body and how many rows (of each sheet) to render. */
export const previewSchema = withSheets(submitFields.extend({ rows: z.number().int().min(1).max(PREVIEW_MAX_ROWS).default(PREVIEW_DEFAULT_ROWS) }));

export const idempotencyHeader = z.object({
  'idempotency-key': z.string().min(1, 'length 1 to 255').max(255, 'length 1 to 255').optional(),
});

export const filterSchema = z.object({
  operator_id: maxChars(128).optional(),
  schedule_id: z.string().max(64).optional(),
  status: z.enum(TASK_STATUSES).optional(),
  // Creation time window: created_after inclusive, created_before exclusive (ISO 8601).
  created_after: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
  created_before: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
});

export const listSchema = filterSchema.extend({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

/** GET /v1/admin/tasks(/counts): the project's filters plus the project and the stage. */
export const adminFilterSchema = filterSchema.extend({
  project_id: z.string().max(100).optional(),
  stage: z.enum(TASK_STAGES).optional(),
});

export const adminListSchema = adminFilterSchema.extend({
  limit: listSchema.shape.limit,
  cursor: listSchema.shape.cursor,
});
