// The key of a project's `hash` masks (docs/SECURITY.md#masked-columns): 32 random bytes, made at
// the project's creation (or on first use for a project older than masks), kept sealed under the
// server key like destinations' secrets (platform/sealed.ts; the project's id bound in), never shown
// by the API. Rotating it changes every hash the project writes from then on; an export pins the
// key it probed with by its id (maskKeyId) and starts over if a lane finds another (ADR 0044).
import { createHmac, randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { projects } from '../../db/schema.js';
import { open, seal, sealedWithCurrent } from '../../platform/sealed.js';
import { DomainError } from '../errors.js';

/** What the sealed key is bound to: a value copied to another project's row does not open. */
const maskKeyContext = (projectId: string) => `mask-key:${projectId}`;

/**
 * The key's id: an HMAC of a fixed label under the key, 16 hex digits. It names the key in an
 * export's staged meta without revealing it (no hash of any value can be made from it).
 */
export const maskKeyId = (key: string): string => createHmac('sha256', Buffer.from(key, 'hex')).update('dc-mask-key-id').digest('hex').slice(0, 16);

/** A new key, sealed for the project. */
export const sealedNewMaskKey = (projectId: string, keys: readonly string[]): string => seal(randomBytes(32).toString('hex'), keys, maskKeyContext(projectId));

async function readSealed(db: Db, projectId: string): Promise<string | null> {
  const [row] = await db.select({ sealed: projects.maskKeySealed }).from(projects).where(eq(projects.id, projectId));
  if (!row) throw DomainError.notFound('project');
  return row.sealed;
}

/** The project's hash key (hex), made and stored now when it has none; two first uses at once agree on one. */
export async function maskKeyOf(db: Db, projectId: string, keys: readonly string[]): Promise<string> {
  let sealed = await readSealed(db, projectId);
  if (sealed === null) {
    await db
      .update(projects)
      .set({ maskKeySealed: sealedNewMaskKey(projectId, keys) })
      .where(and(eq(projects.id, projectId), isNull(projects.maskKeySealed)));
    sealed = await readSealed(db, projectId);
  }
  return open(sealed!, keys, maskKeyContext(projectId));
}

/** After a server-key rotation: mask keys sealed with an older key sealed again with the first (as destinations are). */
export async function resealMaskKeys(db: Db, keys: readonly string[]): Promise<{ resealed: number; unreadable: string[] }> {
  const rows = await db.select({ id: projects.id, sealed: projects.maskKeySealed }).from(projects);
  let resealed = 0;
  const unreadable: string[] = [];
  for (const row of rows) {
    if (row.sealed === null || sealedWithCurrent(row.sealed, keys)) continue;
    let plain: string;
    try {
      plain = open(row.sealed, keys, maskKeyContext(row.id));
    } catch {
      unreadable.push(row.id);
      continue;
    }
    await db
      .update(projects)
      .set({ maskKeySealed: seal(plain, keys, maskKeyContext(row.id)) })
      .where(and(eq(projects.id, row.id), eq(projects.maskKeySealed, row.sealed)));
    resealed++;
  }
  return { resealed, unreadable };
}
