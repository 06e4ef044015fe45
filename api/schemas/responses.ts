// What the API answers with, as zod schemas for the OpenAPI document (api/openapi.ts) and, through
// it, the typed client (client/). The handlers build these objects in domain/*/view.ts and
// projectJson; the client's end-to-end tests read them through these types.
import { z } from '@hono/zod-openapi';
import { maskSchema } from '../../model/mask.js';
import { PAUSED_REASONS } from '../../model/schedule.js';
import { COMPRESSIONS, CSV_DELIMITERS, CSV_LINE_ENDINGS, EXPORT_TYPES, LOCALES, TASK_STAGES, TASK_STATUSES } from '../../model/task.js';

const time = z.iso.datetime({ offset: true });
const nullableTime = time.nullable();

export const errorEnvelope = z
  .object({
    error: z.object({
      code: z.string().openapi({ description: 'A stable machine-readable code (docs/api.md, Errors), e.g. validation_failed, not_found, rate_limited.' }),
      message: z.string().openapi({ description: 'A human sentence.' }),
      request_id: z.string().nullable().openapi({ description: 'The X-Request-Id of this request, for the logs.' }),
      details: z
        .array(z.object({ field: z.string(), message: z.string() }))
        .optional()
        .openapi({ description: 'validation_failed: one entry per refused field.' }),
      quota: z
        .object({
          name: z.enum(['quota_monthly_rows', 'quota_monthly_bytes', 'quota_stored_bytes']),
          limit: z.number().int(),
          used: z.number().int(),
          resets_at: z.string().nullable().openapi({
            description: 'Monthly quotas: the start of the next UTC calendar month. Stored bytes fall as files expire: when the next one does (null: none expires yet).',
          }),
        })
        .optional()
        .openapi({ description: 'quota_exceeded: the quota reached, its limit, the use and when it resets.' }),
    }),
  })
  .openapi('Error');

const fileSchema = z.object({
  name: z.string(),
  bytes: z.number().int(),
  rows: z.number().int(),
  sha256: z.string(),
  url: z.string().openapi({ description: 'A signed link that expires (expires_at): no API key needed.' }),
  expires_at: time,
  delivered_to: z.string().optional().openapi({ description: "Where delivery wrote the file in the task's destination (s3://bucket/key)." }),
});

export const taskSchema = z
  .object({
    task_id: z.string(),
    project_id: z.string(),
    operator_id: z.string(),
    type: z.enum(EXPORT_TYPES),
    compression: z.enum(COMPRESSIONS).nullable(),
    file_name: z.string(),
    source_url: z.string(),
    sheets: z.array(z.object({ name: z.string(), source_url: z.string() })).optional(),
    page_size: z.number().int(),
    priority: z.number().int(),
    callback: z.string().nullable(),
    destination_id: z.string().optional().openapi({ description: 'The destination its files are delivered to (docs/destinations.md).' }),
    destination_path: z.string().nullable().optional(),
    notify_email: z.array(z.string()).openapi({ description: 'Who is e-mailed when the task ends (empty: nobody).' }),
    locale: z.enum(LOCALES).openapi({ description: "The e-mails' language." }),
    schedule_id: z.string().nullable(),
    status: z.enum(TASK_STATUSES),
    runs: z.number().int(),
    stage: z.enum(TASK_STAGES).nullable(),
    progress: z.object({
      total_rows: z.number().int().nullable(),
      fetched_rows: z.number().int(),
      pages_total: z.number().int().nullable(),
      pages_done: z.number().int(),
      percent: z.number(),
      eta_seconds: z.number().int().nullable(),
    }),
    files: z.array(fileSchema).openapi({ description: 'Filled when succeeded (or failed in delivery, until they expire): one file, or the parts and a zip of them all.' }),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    created_at: time,
    started_at: nullableTime,
    finished_at: nullableTime,
    expires_at: nullableTime,
  })
  .openapi('Task');

export const taskPage = z.object({ items: z.array(taskSchema), next_cursor: z.string().nullable() }).openapi('TaskPage');
export const taskCounts = z.object({ counts: z.record(z.string(), z.number().int()) }).openapi('TaskCounts');

export const deliveryList = z
  .object({
    items: z.array(
      z.object({
        delivery_id: z.string(),
        channel: z.enum(['callback', 'email']),
        recipient: z.string().nullable().openapi({ description: "An e-mail's address; null for a callback." }),
        result: z.enum(['delivered', 'failed', 'sending', 'unknown']).openapi({
          description: 'sending: in flight; unknown: the worker stopped mid-send, so it is not sent again (it may or may not have arrived).',
        }),
        event: z.string(),
        webhook_id: z.string().openapi({ description: "The callback's webhook-id, or the e-mail's Message-ID: the same on every attempt." }),
        attempt: z.number().int(),
        status_code: z.number().int().nullable(),
        latency_ms: z.number().int().nullable(),
        error: z.string().nullable(),
        next_attempt_at: nullableTime,
        created_at: time,
      }),
    ),
  })
  .openapi('DeliveryList');

export const projectSchema = z
  .object({
    project_id: z.string(),
    name: z.string(),
    source_hosts: z.array(z.string()),
    callback_hosts: z.array(z.string()),
    destination_hosts: z.array(z.string()),
    retention_hours: z.number().int(),
    max_running_tasks: z.number().int(),
    submit_per_minute: z.number().int(),
    source_max_concurrency: z.number().int(),
    source_rps: z.number().nullable(),
    source_retry_max_attempts: z.number().int(),
    source_retry_max_interval_seconds: z.number().int(),
    source_retry_backoff: z.enum(['exponential', 'uniform']),
    max_schedules: z.number().int(),
    quota_monthly_rows: z.number().int().nullable().openapi({ description: 'rows this UTC calendar month may produce (succeeded tasks); null: no quota' }),
    quota_monthly_bytes: z.number().int().nullable().openapi({ description: 'bytes of files this UTC calendar month may produce; null: no quota' }),
    quota_stored_bytes: z.number().int().nullable().openapi({ description: 'bytes of live files the project may hold; null: no quota' }),
    embed_origins: z.array(z.string()).openapi({ description: 'origins that may frame the operator center (CSP frame-ancestors); empty: none' }),
    email_domains: z.array(z.string()).openapi({ description: "domains the tasks' notify_email addresses may be at; empty: none" }),
    mask_columns: z.record(z.string(), maskSchema).openapi({ description: 'columns (source keys) masked in every task of the project, whatever its template says' }),
    downloads_through_api: z.boolean().openapi({ description: "files[].url is the API's signed link even where direct downloads (presigned bucket URLs) are on, so every download is recorded" }),
    alert_emails: z.array(z.string()).openapi({ description: 'who is mailed once when a schedule pauses itself after failing; empty: nobody' }),
    alert_callback: z.string().nullable().openapi({ description: 'where a signed schedule.paused event is POSTed when a schedule pauses itself; null: nowhere' }),
    excel_max_file_rows: z.number().int(),
    excel_max_file_bytes: z.number().int(),
    csv_max_file_rows: z.number().int().nullable(),
    csv_max_file_bytes: z.number().int(),
    csv_delimiter: z.enum(CSV_DELIMITERS).openapi({ description: "the csv tasks' field separator when they name none" }),
    csv_line_ending: z.enum(CSV_LINE_ENDINGS).openapi({ description: "the csv tasks' record separator when they name none" }),
    csv_bom: z.boolean().openapi({ description: 'whether csv files start with a byte order mark when their task does not say' }),
    created_at: time,
  })
  .openapi('Project');

export const projectCreated = projectSchema
  .extend({ api_key: z.string().openapi({ description: 'Shown once.' }), webhook_secret: z.string().openapi({ description: 'Shown once.' }) })
  .openapi('ProjectCreated');
export const projectPage = z.object({ items: z.array(projectSchema), next_cursor: z.string().nullable() }).openapi('ProjectPage');
export const keyRotated = projectSchema
  .extend({ api_key: z.string(), previous_key_expires_at: nullableTime })
  .openapi('ApiKeyRotated');
export const secretRotated = projectSchema
  .extend({ webhook_secret: z.string(), previous_secret_expires_at: nullableTime })
  .openapi('WebhookSecretRotated');
export const maskKeyRotated = projectSchema.extend({ mask_key_rotated_at: time }).openapi('MaskKeyRotated');

export const scheduleObject = z
  .object({
    schedule_id: z.string(),
    project_id: z.string(),
    cron: z.string().nullable(),
    every: z.string().nullable(),
    timezone: z.string(),
    overlap: z.string(),
    pause_after_failures: z.number().int(),
    paused: z.boolean(),
    note: z.string().nullable(),
    paused_reason: z
      .enum(PAUSED_REASONS)
      .nullable()
      .openapi({
        description:
          'Why it is paused (null while it runs): failing (it paused itself after pause_after_failures failed runs in a row), manual (POST …/pause, or the Temporal UI), source_host_not_allowed (a run was refused: its source host left source_hosts), refused (a run was refused for another reason; last_error says which).',
      }),
    last_error: z
      .object({
        code: z.string(),
        message: z.string(),
        task_id: z.string().nullable().openapi({ description: 'The failed task; null when the run was refused before it made one.' }),
        at: time,
      })
      .nullable()
      .openapi({ description: "The last failed run's code and sentence, kept until the schedule is resumed." }),
    consecutive_failures: z.number().int().openapi({ description: 'Failed runs in a row since failures last counted from zero (creation, a resume, or a run that did not fail).' }),
    task: z.record(z.string(), z.unknown()).openapi({ description: 'The task body each run submits, placeholders as written.' }),
    last_run: z.object({ at: time, outcome: z.string().nullable(), task_id: z.string().nullable() }).nullable(),
    backfill: z
      .object({ start: time, end: time, done: z.number().int(), total: z.number().int(), created_at: time })
      .nullable()
      .openapi({ description: 'The latest backfill: of its total runs, how many have made their task (done = total: finished); null: none.' }),
    next_runs: z.array(time).optional(),
    created_at: time,
    updated_at: time,
  })
  .openapi('Schedule');
export const backfillObject = z
  .object({
    schedule_id: z.string(),
    start: time,
    end: time,
    intervals: z.number().int().openapi({ description: 'The runs the backfill makes, one task each, oldest first (at most 1,000).' }),
    first_run: time.nullable().openapi({ description: 'When the first of them was due (null: none is due in the range).' }),
    last_run: time.nullable(),
  })
  .openapi('Backfill');
export const schedulePage = z.object({ items: z.array(scheduleObject), next_cursor: z.string().nullable() }).openapi('SchedulePage');

export const TASK_EVENTS = ['task.progress', 'task.paused', 'task.resumed', 'task.succeeded', 'task.failed', 'task.cancelled', 'task.expired'] as const;

/** A WebSocket event frame (docs/api.md#get-v1ws); a callback carries the same shape with a final event. */
export const taskEvent = z.object({ event: z.enum(TASK_EVENTS), task: taskSchema }).openapi('TaskEvent');
export const callbackEvent = z.object({ event: z.enum(['task.succeeded', 'task.failed']), task: taskSchema }).openapi('CallbackEvent');
/** What the project's alert_callback receives when a schedule pauses itself after failing (activities/schedule-alerts.ts). */
export const schedulePausedEvent = z
  .object({
    event: z.literal('schedule.paused'),
    schedule_id: z.string(),
    failures: z.number().int().openapi({ description: 'The failed runs in a row that paused it (its pause_after_failures).' }),
    last_error: z.object({ code: z.string(), message: z.string(), task_id: z.string() }).openapi({ description: 'The last of those runs: its task, code and sentence.' }),
    console_url: z.string().openapi({ description: "The console's schedules page, where it is resumed." }),
    schedule: scheduleObject.openapi({ description: 'The schedule as it is when the event is sent (resumed meanwhile: paused is false).' }),
  })
  .openapi('SchedulePausedEvent');

export const healthSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  checks: z.object({ database: z.string(), temporal: z.string(), storage: z.string() }),
});
export const readySchema = z.object({ status: z.enum(['ready', 'stopping']) });
