// What operators do to projects (docs/operations.md#the-admin-api): list them, change their settings, rotate their API
// key and webhook secret. A rotated key keeps working for the grace period, then answers 401; a
// rotated webhook secret keeps signing beside the new one for the same period (Standard Webhooks
// receivers accept any one valid signature of several), so receivers can switch without a gap.
import { and, asc, eq, gt, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type ProjectRow, projects } from '../../db/schema.js';
import type { StoredSettingsJson } from '../../model/project-settings.js';
import { randomToken, sha256Hex } from '../../platform/crypto.js';
import { newWebhookSecret } from '../callbacks/webhooks.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { DomainError } from '../errors.js';
import { projectChanged } from './key-cache.js';
import { sealedNewMaskKey } from './mask-key.js';
import { checkAlertSettings } from './alert-settings.js';
import { type NewProject, requireProject, settingsOf } from './projects.js';

/** Creation's fields, each optional: what PATCH /v1/projects/:id may change. */
export type ProjectPatch = Partial<NewProject>;

const COLUMNS = { name: 'name', source_hosts: 'sourceHosts', callback_hosts: 'callbackHosts', destination_hosts: 'destinationHosts', retention_hours: 'retentionHours', max_running_tasks: 'maxRunningTasks', submit_per_minute: 'submitPerMinute' } as const;

export async function updateProject(db: Db, projectId: string, patch: ProjectPatch): Promise<ProjectRow> {
  const current = await requireProject(db, projectId);
  // The alert settings being set, against the lists as they will be after this change.
  checkAlertSettings(
    { alert_emails: patch.alert_emails, alert_callback: patch.alert_callback },
    { email_domains: patch.email_domains ?? settingsOf(current).email_domains, callback_hosts: patch.callback_hosts ?? current.callbackHosts },
  );
  const set: Partial<typeof projects.$inferInsert> = {};
  const stored: Record<string, unknown> = { ...current.settings };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    const column = COLUMNS[k as keyof typeof COLUMNS];
    if (column) (set as Record<string, unknown>)[column] = v;
    else stored[k] = v;
  }
  set.settings = stored as StoredSettingsJson;
  const [row] = await db.update(projects).set(set).where(eq(projects.id, projectId)).returning();
  if (!row) throw DomainError.notFound('project');
  await projectChanged(db, projectId);
  return row;
}

// Cursors hold milliseconds; rows created before createProject set the time itself carry microseconds.
const createdMs = sql<Date>`date_trunc('milliseconds', ${projects.createdAt})`;

function afterCursor(cursor: string): SQL {
  const [d, id] = decodeCursor(cursor);
  const ts = sql`${d.toISOString()}::timestamptz`;
  return or(sql`${createdMs} > ${ts}`, and(sql`${createdMs} = ${ts}`, gt(projects.id, id)))!;
}

/** In creation order (oldest first, so a page never shifts as projects are added), `limit` at a time. */
export async function listProjects(db: Db, q: { limit: number; cursor?: string | undefined }): Promise<{ items: ProjectRow[]; nextCursor: string | null }> {
  const rows = await db
    .select()
    .from(projects)
    .where(q.cursor ? afterCursor(q.cursor) : undefined)
    .orderBy(asc(createdMs), asc(projects.id))
    .limit(q.limit + 1);
  const items = rows.slice(0, q.limit);
  return { items, nextCursor: rows.length > q.limit ? encodeCursor(items[items.length - 1]!) : null };
}

/**
 * A new API key; the current one stays valid for `graceSeconds` (0: revoked at once). A key
 * rotated earlier and still in its grace period is revoked now: only one old key lives on.
 */
export async function rotateApiKey(db: Db, projectId: string, graceSeconds: number): Promise<{ project: ProjectRow; apiKey: string; previousKeyExpiresAt: Date | null }> {
  const current = await requireProject(db, projectId);
  const apiKey = `dck_${randomToken(24)}`;
  const expires = graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000) : null;
  const [row] = await db
    .update(projects)
    .set({ apiKeyHash: sha256Hex(apiKey), previousApiKeyHash: expires ? current.apiKeyHash : null, previousKeyExpiresAt: expires })
    // Two rotations at once: the second sees the first's key as current, not a stale one.
    .where(and(eq(projects.id, projectId), eq(projects.apiKeyHash, current.apiKeyHash)))
    .returning();
  if (!row) throw new DomainError('conflict', 'the key was rotated by another request meanwhile; try again');
  await projectChanged(db, projectId);
  return { project: row, apiKey, previousKeyExpiresAt: expires };
}

/** A new webhook secret; callbacks are signed with it and the previous one for `graceSeconds`. */
export async function rotateWebhookSecret(db: Db, projectId: string, graceSeconds: number): Promise<{ project: ProjectRow; webhookSecret: string; previousSecretExpiresAt: Date | null }> {
  const current = await requireProject(db, projectId);
  const webhookSecret = newWebhookSecret();
  const expires = graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000) : null;
  const [row] = await db
    .update(projects)
    .set({ webhookSecret, previousWebhookSecret: expires ? current.webhookSecret : null, previousWebhookSecretExpiresAt: expires })
    .where(and(eq(projects.id, projectId), eq(projects.webhookSecret, current.webhookSecret)))
    .returning();
  if (!row) throw new DomainError('conflict', 'the webhook secret was rotated by another request meanwhile; try again');
  await projectChanged(db, projectId);
  return { project: row, webhookSecret, previousSecretExpiresAt: expires };
}

/** The secrets a callback is signed with now: the current one, and the previous one in its grace period. */
export function signingSecrets(p: Pick<ProjectRow, 'webhookSecret' | 'previousWebhookSecret' | 'previousWebhookSecretExpiresAt'>, now = new Date()): string[] {
  const previous = p.previousWebhookSecret && p.previousWebhookSecretExpiresAt && p.previousWebhookSecretExpiresAt > now ? [p.previousWebhookSecret] : [];
  return [p.webhookSecret, ...previous];
}

/**
 * A new key for the project's `hash` masks (docs/SECURITY.md#masked-columns): every hash it writes
 * from now on differs from the ones before; the key itself is never shown. An export running
 * across it starts over once under the new key (its probe pinned the old one: activities/fetch.ts).
 */
export async function rotateMaskKey(db: Db, projectId: string, sealingKeys: readonly string[]): Promise<ProjectRow> {
  const [row] = await db.update(projects).set({ maskKeySealed: sealedNewMaskKey(projectId, sealingKeys) }).where(eq(projects.id, projectId)).returning();
  if (!row) throw DomainError.notFound('project');
  await projectChanged(db, projectId);
  return row;
}
