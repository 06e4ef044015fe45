// Projects: the tenants. Creation issues the API key (kept only as a hash) and the webhook secret;
// lookups here are the only way the rest of the code reads a project.
import { and, eq, gt, inArray, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type ProjectRow, projects } from '../../db/schema.js';
import { parseStoredSettings, type projectSettingsSchema, type StoredSettings } from '../../model/project-settings.js';
import type { z } from 'zod';
import { newId, randomToken, sha256Hex } from '../../platform/crypto.js';
import { newWebhookSecret } from '../callbacks/webhooks.js';
import { checkAlertSettings } from './alert-settings.js';
import { resolveSplit } from '../formats/split.js';
import { DomainError } from '../errors.js';
import { sealedNewMaskKey } from './mask-key.js';

export type ProjectSettings = z.infer<typeof projectSettingsSchema>;

export interface NewProject extends ProjectSettings {
  name: string;
  source_hosts: string[];
  callback_hosts: string[];
  destination_hosts: string[];
}

export async function getProject(db: Db, projectId: string): Promise<ProjectRow | undefined> {
  const [row] = await db.select().from(projects).where(eq(projects.id, projectId));
  return row;
}

/** The stored settings of these projects, by id (a page of tasks across projects: its links). */
export async function projectsSettings(db: Db, projectIds: string[]): Promise<Map<string, Pick<ProjectRow, 'settings'>>> {
  const ids = [...new Set(projectIds)];
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: projects.id, settings: projects.settings }).from(projects).where(inArray(projects.id, ids));
  return new Map(rows.map((r) => [r.id, r]));
}

export async function requireProject(db: Db, projectId: string): Promise<ProjectRow> {
  const row = await getProject(db, projectId);
  if (!row) throw DomainError.notFound('project');
  return row;
}

/** The project of a key: its current key, or the one before a rotation while its grace period lasts. */
export async function projectByApiKey(db: Db, apiKey: string): Promise<ProjectRow | undefined> {
  const hash = sha256Hex(apiKey);
  const [row] = await db
    .select()
    .from(projects)
    .where(or(eq(projects.apiKeyHash, hash), and(eq(projects.previousApiKeyHash, hash), gt(projects.previousKeyExpiresAt, new Date()))));
  return row;
}

/** Whether a key (by its hash) still opens the project at `now`: the current one, or the previous in its grace. */
export function keyStillValid(p: ProjectRow, keyHash: string, now: number): boolean {
  if (p.apiKeyHash === keyHash) return true;
  return p.previousApiKeyHash === keyHash && p.previousKeyExpiresAt !== null && p.previousKeyExpiresAt.getTime() > now;
}

/** The project's stored settings with defaults (rows written before a setting existed get it too). */
export const settingsOf = (p: Pick<ProjectRow, 'settings'>): StoredSettings => parseStoredSettings(p.settings);

/**
 * A new project; the API key and webhook secret are returned this once. With the server's sealing
 * keys its hash-mask key is made now (mask-key.ts); without, on its first use.
 */
export async function createProject(db: Db, input: NewProject, sealingKeys?: readonly string[]): Promise<{ project: ProjectRow; apiKey: string; webhookSecret: string }> {
  const id = newId('prj');
  checkAlertSettings(input, input);
  const apiKey = `dck_${randomToken(24)}`;
  const webhookSecret = newWebhookSecret();
  const { name, source_hosts, callback_hosts, destination_hosts, retention_hours, max_running_tasks, submit_per_minute, ...stored } = input;
  const [project] = await db
    .insert(projects)
    .values({
      id,
      name,
      ...(sealingKeys?.length ? { maskKeySealed: sealedNewMaskKey(id, sealingKeys) } : {}),
      apiKeyHash: sha256Hex(apiKey),
      webhookSecret,
      sourceHosts: source_hosts,
      callbackHosts: callback_hosts,
      destinationHosts: destination_hosts,
      retentionHours: retention_hours,
      maxRunningTasks: max_running_tasks,
      submitPerMinute: submit_per_minute,
      settings: stored,
      // Set here rather than by the database: list cursors compare it at millisecond precision.
      createdAt: new Date(),
    })
    .returning();
  return { project: project!, apiKey, webhookSecret };
}

/** The project as the API shows it: every setting with its effective value (null: no limit). */
export function projectJson(p: ProjectRow) {
  const s = settingsOf(p);
  const excel = resolveSplit('excel', {}, s);
  const csv = resolveSplit('csv', {}, s);
  return {
    project_id: p.id,
    name: p.name,
    source_hosts: p.sourceHosts,
    callback_hosts: p.callbackHosts,
    destination_hosts: p.destinationHosts,
    retention_hours: p.retentionHours,
    max_running_tasks: p.maxRunningTasks,
    submit_per_minute: p.submitPerMinute,
    source_max_concurrency: s.source_max_concurrency,
    source_rps: s.source_rps,
    source_retry_max_attempts: s.source_retry_max_attempts,
    source_retry_max_interval_seconds: s.source_retry_max_interval_seconds,
    source_retry_backoff: s.source_retry_backoff,
    max_schedules: s.max_schedules,
    quota_monthly_rows: s.quota_monthly_rows,
    quota_monthly_bytes: s.quota_monthly_bytes,
    quota_stored_bytes: s.quota_stored_bytes,
    embed_origins: s.embed_origins,
    email_domains: s.email_domains,
    mask_columns: s.mask_columns,
    downloads_through_api: s.downloads_through_api,
    alert_emails: s.alert_emails,
    alert_callback: s.alert_callback,
    excel_max_file_rows: excel.maxRows,
    excel_max_file_bytes: excel.maxBytes,
    csv_max_file_rows: csv.maxRows === Number.MAX_SAFE_INTEGER ? null : csv.maxRows,
    csv_max_file_bytes: csv.maxBytes,
    csv_delimiter: s.csv_delimiter ?? ',',
    csv_line_ending: s.csv_line_ending ?? 'crlf',
    csv_bom: s.csv_bom ?? true,
    created_at: p.createdAt.toISOString(),
  };
}

/** The settings of a task's project; defaults when the project is gone. */
export async function settingsFor(db: Db, projectId: string): Promise<StoredSettings> {
  return settingsOf((await getProject(db, projectId)) ?? { settings: {} });
}
