import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { StoredSettingsJson } from '../model/project-settings.js';
import { OVERLAP_POLICIES, PAUSED_REASONS, type ScheduleLastError } from '../model/schedule.js';
import { EXPORT_TYPES, type LaneProgress, type StoredFile, TASK_STAGES, TASK_STATUSES } from '../model/task.js';
import { parseTaskOptions, type TaskOptions } from '../model/task-options.js';

export type { LaneProgress, StoredFile } from '../model/task.js';

/**
 * A jsonb column like drizzle's own, typed by the task options' schema and parsed by it wherever a
 * row is read (a select or a returning): readers get TaskOptions, never a cast.
 */
const taskOptions = customType<{ data: TaskOptions; driverData: unknown }>({
  dataType: () => 'jsonb',
  toDriver: (value) => JSON.stringify(value),
  // postgres.js hands jsonb over as text (drizzle's driver asks it to), PGlite as a value.
  fromDriver: (value) => parseTaskOptions(typeof value === 'string' ? JSON.parse(value) : value),
});

export const projects = pgTable('projects', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  // Only a SHA-256 of the key is kept; the key itself is shown once at creation.
  apiKeyHash: text('api_key_hash').notNull().unique(),
  // The key before the last rotation keeps working until previousKeyExpiresAt (KEY_ROTATION_GRACE_SECONDS).
  previousApiKeyHash: text('previous_api_key_hash').unique(),
  previousKeyExpiresAt: timestamp('previous_key_expires_at', { withTimezone: true }),
  // The webhook secret must be readable to sign callbacks, so it is stored as issued.
  webhookSecret: text('webhook_secret').notNull(),
  // After a rotation, callbacks are signed with both secrets until previousWebhookSecretExpiresAt.
  previousWebhookSecret: text('previous_webhook_secret'),
  previousWebhookSecretExpiresAt: timestamp('previous_webhook_secret_expires_at', { withTimezone: true }),
  // The key of `hash` masks (docs/SECURITY.md#masked-columns), sealed like destinations' secrets
  // (platform/sealed.ts); null until first needed for a project created before masks existed.
  maskKeySealed: text('mask_key_sealed'),
  sourceHosts: jsonb('source_hosts').$type<string[]>().notNull(),
  callbackHosts: jsonb('callback_hosts').$type<string[]>().notNull(),
  // Where the project's destinations may point (domain/destinations/); set by the admin, like sourceHosts.
  destinationHosts: jsonb('destination_hosts').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  retentionHours: integer('retention_hours').notNull(),
  maxRunningTasks: integer('max_running_tasks').notNull(),
  submitPerMinute: integer('submit_per_minute').notNull(),
  // The submit limiter's theoretical arrival time (GCRA, domain/tasks/rate.ts); null until the first submission.
  submitTat: timestamp('submit_tat', { withTimezone: true }),
  // Later per-project knobs (split limits, source politeness) without a migration each.
  settings: jsonb('settings').$type<StoredSettingsJson>().notNull().default(sql`'{}'::jsonb`),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
}, (p) => [
  // GET /v1/projects pages in creation order.
  index('projects_created_idx').on(p.createdAt, p.id),
]);

export const tasks = pgTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    operatorId: text('operator_id').notNull(),
    type: text('type', { enum: EXPORT_TYPES }).notNull(),
    fileName: text('file_name').notNull(),
    sourceUrl: text('source_url').notNull(),
    callback: text('callback'),
    pageSize: integer('page_size').notNull(),
    priority: integer('priority').notNull(),
    // What a submission asked beyond these columns (model/task-options.ts): read by the run, never queried.
    options: taskOptions('options').notNull(),
    status: text('status', { enum: TASK_STATUSES }).notNull().default('queued'),
    stage: text('stage', { enum: TASK_STAGES }),
    totalRows: integer('total_rows'),
    pagesTotal: integer('pages_total'),
    lanes: jsonb('lanes').$type<LaneProgress>().notNull().default(sql`'{}'::jsonb`),
    files: jsonb('files').$type<StoredFile[]>().notNull().default(sql`'[]'::jsonb`),
    errorCode: text('error_code'),
    errorMessage: text('error_message'),
    idempotencyKey: text('idempotency_key'),
    // SHA-256 of the normalised request: both the Idempotency-Key body check and the no-key de-duplication use it.
    requestHash: text('request_hash').notNull(),
    runs: integer('runs').notNull().default(1),
    // The schedule whose run submitted this task (domain/schedules); kept after the schedule is deleted.
    scheduleId: text('schedule_id'),
    // When admission reserved one of the project's slots for this queued task (domain/tasks/admission/).
    admittedAt: timestamp('admitted_at', { withTimezone: true }),
    // Until when a starter holds the start of this admitted task's run; the sweep starts it only
    // once the claim has lapsed (docs/adr/0022-admission-one-owner.md).
    startClaimedUntil: timestamp('start_claimed_until', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // The lists page newest first, one index per filter: its equalities, then (created_at, id) in
    // the order newestFirst() asks for (domain/cursor.ts; docs/adr/0029-list-queries-by-index.md).
    index('tasks_project_created_idx').on(t.projectId, t.createdAt.desc(), t.id.desc()),
    index('tasks_created_idx').on(t.createdAt.desc(), t.id.desc()),
    index('tasks_project_operator_idx').on(t.projectId, t.operatorId, t.createdAt.desc(), t.id.desc()),
    index('tasks_project_status_idx').on(t.projectId, t.status, t.createdAt.desc(), t.id.desc()),
    // The admin list by status or by stage across projects; only live tasks have a stage.
    index('tasks_status_created_idx').on(t.status, t.createdAt.desc(), t.id.desc()),
    index('tasks_stage_created_idx').on(t.stage, t.createdAt.desc(), t.id.desc()).where(sql`${t.stage} is not null`),
    index('tasks_request_hash_idx').on(t.projectId, t.requestHash),
    uniqueIndex('tasks_idempotency_idx').on(t.projectId, t.idempotencyKey),
    // De-duplication without a key: one live task per identical request, enforced by the database.
    uniqueIndex('tasks_live_request_idx')
      .on(t.projectId, t.requestHash)
      .where(sql`${t.idempotencyKey} is null and ${t.status} in ('queued', 'running', 'paused')`),
    // Admission: a project's waiting tasks in start order.
    index('tasks_queue_idx').on(t.projectId, t.priority, t.createdAt, t.id).where(sql`${t.status} = 'queued' and ${t.admittedAt} is null`),
    // The cleaner's succeeded tasks past expiry, oldest first; the expired ones keep expires_at and
    // would otherwise be read again by every batch (docs/adr/0029-list-queries-by-index.md).
    // A task whose delivery failed keeps its files until they expire too (docs/destinations.md).
    index('tasks_expires_idx').on(t.expiresAt).where(sql`${t.status} in ('succeeded', 'failed')`),
    // GET /v1/tasks?schedule_id=, a schedule's live task (overlap) and its recent outcomes (failure streak).
    index('tasks_project_schedule_idx').on(t.projectId, t.scheduleId, t.createdAt.desc(), t.id.desc()),
  ],
);

/**
 * How many tasks each project has in each status, kept by triggers on tasks as rows change
 * (db/functions/dc_task_counts_apply.sql, docs/adr/0028-kept-task-counts.md). Read-only here: the
 * database is its only writer. A row may hold 0 once its last task has moved on.
 */
export const taskCounts = pgTable(
  'task_counts',
  {
    projectId: text('project_id').notNull(),
    status: text('status', { enum: TASK_STATUSES }).notNull(),
    n: integer('n').notNull().default(0),
  },
  (c) => [primaryKey({ name: 'task_counts_pk', columns: [c.projectId, c.status] })],
);

/**
 * Each project's use per UTC day, kept by triggers on tasks and deliveries as rows change
 * (db/functions/dc_usage_apply.sql, docs/adr/0049-usage-and-quotas.md): submissions, ends, the
 * output of succeeded tasks, destination deliveries and e-mails sent. Read-only here, like task_counts.
 */
export const usageDays = pgTable(
  'usage_days',
  {
    projectId: text('project_id').notNull(),
    // The UTC calendar date the use happened on.
    day: date('day', { mode: 'string' }).notNull(),
    tasks: integer('tasks').notNull().default(0),
    succeeded: integer('succeeded').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    rows: bigint('rows', { mode: 'number' }).notNull().default(0),
    bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
    deliveries: integer('deliveries').notNull().default(0),
    emails: integer('emails').notNull().default(0),
  },
  (u) => [primaryKey({ name: 'usage_days_pk', columns: [u.projectId, u.day] }), index('usage_days_day_idx').on(u.day)],
);

/** Bytes of each project's live files (succeeded tasks, and failed ones that kept theirs), kept by the same triggers. */
export const usageStored = pgTable('usage_stored', {
  projectId: text('project_id').primaryKey(),
  bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
});

/**
 * Recurring exports (domain/schedules, ADR 0014). Each row has a Temporal Schedule of the same id
 * that fires the runs; the row holds what the API shows and what a run needs: the task body with
 * its placeholders, the overlap rule and the failure streak that pauses it.
 */
export const schedules = pgTable(
  'schedules',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    // Exactly one of cron (with time_zone) and every (an interval) is set.
    cron: text('cron'),
    every: text('every'),
    timezone: text('timezone').notNull(),
    overlap: text('overlap', { enum: OVERLAP_POLICIES }).notNull(),
    pauseAfterFailures: integer('pause_after_failures').notNull(),
    // The validated task body; {{date}}-style placeholders are filled in for each run.
    body: jsonb('body').$type<Record<string, unknown>>().notNull(),
    paused: boolean('paused').notNull().default(false),
    // Why it is paused (the caller's note, or the failures that paused it).
    note: text('note'),
    // The same, machine-readable (model/schedule.ts); null while it runs.
    pausedReason: text('paused_reason', { enum: PAUSED_REASONS }),
    // The last failed run's code and sentence, kept until a resume.
    lastError: jsonb('last_error').$type<ScheduleLastError>(),
    // Failed runs in a row since failures last counted from zero (an ended run that did not fail resets it).
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    // When the alert of its last pause for failing was started (its mail and event, domain/schedules/alerts.ts).
    alertedAt: timestamp('alerted_at', { withTimezone: true }),
    // Runs' failures count from here: creation, or the last resume.
    countingSince: timestamp('counting_since', { withTimezone: true }).notNull().defaultNow(),
    // Runs of one schedule submit one at a time (domain/schedules/runs.ts): the holder's lease ends here.
    runLeaseUntil: timestamp('run_lease_until', { withTimezone: true }),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    lastTaskId: text('last_task_id'),
    // submitted, skipped (overlap), refused (the submission was refused: the schedule is paused).
    lastOutcome: text('last_outcome'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('schedules_project_created_idx').on(t.projectId, t.createdAt.desc(), t.id.desc())],
);

/** Where an SFTP destination connects, and how it logs in (its password or private key is sealed in secret_sealed). */
export interface SftpTarget {
  host: string;
  port: number;
  username: string;
  /** The server's host key as OpenSSH prints it: `SHA256:` and the unpadded base64 of the key blob's SHA-256. */
  host_key_sha256: string;
  auth: 'password' | 'private_key';
}

/**
 * A project's delivery targets (domain/destinations/): a customer's S3-compatible bucket, or an
 * SFTP server's directory. The secret (S3's secret key, SFTP's password or private key) is kept
 * sealed (AES-256-GCM under a server key, platform/sealed.ts) and never shown again. The S3 columns
 * are null on an SFTP row and `sftp` null on an S3 one; `prefix` is the S3 key prefix or the SFTP
 * directory (absolute, ending in `/`).
 */
export const destinations = pgTable(
  'destinations',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    kind: text('kind', { enum: ['s3', 'sftp'] }).notNull(),
    endpoint: text('endpoint'),
    region: text('region'),
    bucket: text('bucket'),
    prefix: text('prefix').notNull(),
    accessKeyId: text('access_key_id'),
    secretSealed: text('secret_sealed').notNull(),
    pathStyle: boolean('path_style'),
    sftp: jsonb('sftp').$type<SftpTarget>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (d) => [index('destinations_project_created_idx').on(d.projectId, d.createdAt.desc(), d.id.desc())],
);

export type DestinationRow = typeof destinations.$inferSelect;

/**
 * A backfill asked of a schedule (POST /v1/schedules/:id/backfill): its runs are those due after
 * start up to and including end, and they are never skipped by the schedule's overlap rule.
 */
export const scheduleBackfills = pgTable(
  'schedule_backfills',
  {
    id: text('id').primaryKey(),
    scheduleId: text('schedule_id')
      .notNull()
      .references(() => schedules.id, { onDelete: 'cascade' }),
    startAt: timestamp('start_at', { withTimezone: true }).notNull(),
    endAt: timestamp('end_at', { withTimezone: true }).notNull(),
    intervals: integer('intervals').notNull(),
    // Runs of the range that have made their task (domain/schedules/runs.ts counts each run once).
    done: integer('done').notNull().default(0),
    // The last run counted: a retried run's activity is not counted twice (the runs go one at a time).
    lastRunId: text('last_run_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('schedule_backfills_schedule_idx').on(t.scheduleId, t.startAt)],
);

export type ProjectRow = typeof projects.$inferSelect;
export type ScheduleRow = typeof schedules.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;

/** One row per callback or e-mail delivery attempt, shown by GET /v1/tasks/:id/deliveries. */
export const deliveries = pgTable(
  'deliveries',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    // `callback` (a signed POST) or `email` (one recipient's mail).
    channel: text('channel', { enum: ['callback', 'email'] }).notNull().default('callback'),
    // The e-mail's address; null for a callback.
    recipient: text('recipient'),
    // E-mail only: sending (claimed, in flight), delivered, failed, unknown (a worker died mid-send:
    // not sent again, docs/adr/0031-task-emails.md). Null for a callback, whose result is its status code.
    result: text('result', { enum: ['sending', 'delivered', 'failed', 'unknown'] }),
    event: text('event').notNull(),
    // Standard Webhooks: the same webhook-id on every retry of one event. An e-mail's Message-ID.
    webhookId: text('webhook_id').notNull(),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms'),
    error: text('error'),
    // When the next attempt is due (null once delivered or given up).
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('deliveries_task_idx').on(t.taskId, t.createdAt),
    // The claim of an e-mail: at most one attempt of one Message-ID sending or delivered, ever.
    uniqueIndex('deliveries_email_claim_idx').on(t.webhookId).where(sql`${t.channel} = 'email' and ${t.result} in ('sending', 'delivered', 'unknown')`),
  ],
);

export type DeliveryRow = typeof deliveries.$inferSelect;

/**
 * One row per download of a task's file (docs/downloads.md), written when the response ends: who
 * asked (a project key, an operator session, or the holder of a signed link), from where, and how
 * much of the file was sent. Kept as long as the task's row; removed with it.
 */
export const downloads = pgTable(
  'downloads',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    projectId: text('project_id').notNull(),
    // files[].name, and its place in files[] (names are unique within a task; the index orders them).
    fileName: text('file_name').notNull(),
    fileIndex: integer('file_index').notNull(),
    // How it was asked for: the API's download route, a signed link (files[].url), a sync export's answer.
    via: text('via', { enum: ['api', 'link', 'sync'] }).notNull(),
    byKind: text('by_kind', { enum: ['project', 'operator', 'link'] }).notNull(),
    // The project's id, the operator's id; null for a link nobody signed in for.
    byId: text('by_id'),
    // The operator session behind it (an e-mail's link is a session of one task); null otherwise.
    sessionId: text('session_id'),
    ip: text('ip').notNull(),
    userAgent: text('user_agent').notNull(),
    // A Range answer's part, as its Content-Range says it (`bytes 0-1023/4096`); null: the whole file was asked.
    range: text('range'),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    // The whole file was sent (a range short of the whole file never is).
    complete: boolean('complete').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    // When the response ended (sent whole, or cut short): the order the lists page in.
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (d) => [
    // GET /v1/downloads (?since=): a project's downloads newest first, a page at any depth.
    index('downloads_project_at_idx').on(d.projectId, d.at.desc(), d.id.desc()),
    // GET /v1/tasks/:id/downloads, and the cascade of a task's removal.
    index('downloads_task_at_idx').on(d.taskId, d.at.desc(), d.id.desc()),
    // An operator's own downloads (the operator's center).
    index('downloads_project_by_at_idx').on(d.projectId, d.byKind, d.byId, d.at.desc(), d.id.desc()),
  ],
);

export type DownloadRow = typeof downloads.$inferSelect;

/**
 * The slots of each project's source politeness (domain/source/limiter.ts): slot `slot` of `key` is
 * held by `holder` until `expires_at`. A holder renews its rows while it runs, so the slots of a
 * process that died free themselves when their lease ends; no connection is held meanwhile.
 */
export const sourceSlots = pgTable(
  'source_slots',
  {
    key: text('key').notNull(),
    slot: integer('slot').notNull(),
    holder: text('holder').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.slot] })],
);

// Operator sessions (docs/adr/0027-operator-sessions.md): a credential scoped to one operator of one
// project. Only a SHA-256 of the token is kept. project_key_hash is the project key current when the
// session was made: the session lasts while that key does (through a rotation's grace, not after).
export const operatorSessions = pgTable(
  'operator_sessions',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id),
    operatorId: text('operator_id').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    projectKeyHash: text('project_key_hash').notNull(),
    permissions: text('permissions').array().notNull(),
    locale: text('locale').notNull(),
    /** Set for an e-mail's link: the session opens this one task only (null: every task of the operator). */
    taskId: text('task_id'),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (s) => [
    // The cap's count of a project's sessions that have not expired, and the purge of expired ones.
    index('operator_sessions_project_expires_idx').on(s.projectId, s.expiresAt),
    index('operator_sessions_expires_idx').on(s.expiresAt),
  ],
);

export type OperatorSessionRow = typeof operatorSessions.$inferSelect;
