// Operator sessions (docs/adr/0027-operator-sessions.md): a project mints a short-lived, opaque
// token for one of its operators; only its SHA-256 is stored, so a leaked table opens nothing.
// A session ends when it expires, is revoked, or when the project key current at its creation
// stops opening the project (a rotation, once its grace is over).
import { and, count, eq, gt, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { type OperatorSessionRow, operatorSessions, type ProjectRow, projects } from '../../db/schema.js';
import type { Locale } from '../../model/task.js';
import { newId, randomToken, sha256Hex } from '../../platform/crypto.js';
import { DomainError } from '../errors.js';
import { projectChanged } from './key-cache.js';
import { keyStillValid } from './projects.js';

export const OPERATOR_PERMISSIONS = ['download', 'cancel', 'retry', 'pause'] as const;
export type OperatorPermission = (typeof OPERATOR_PERMISSIONS)[number];

/** Operator tokens carry a prefix of their own, so a lookup never has to try both tables. */
export const OPERATOR_TOKEN_PREFIX = 'dco_';

/** The longest a session lives (a day): what POST /v1/operator-sessions allows, and an e-mail's link too. */
export const OPERATOR_SESSION_MAX_SECONDS = 86_400;

/**
 * The most sessions a project may hold that have not expired, revoked ones included (a revoked
 * one is kept until its expiry, so that revoking it again answers the same): past it, 409
 * limit_reached. With sessions of at most a day, the table holds at most this many rows per
 * project beyond what the purge has yet to delete. An e-mail's links are not counted: they come
 * one per recipient of a finished task, bounded by the tasks a project may submit.
 */
export const MAX_OPERATOR_SESSIONS = 10_000;

export interface NewOperatorSession {
  operatorId: string;
  expiresIn: number;
  permissions: OperatorPermission[];
  locale: Locale;
  /** An e-mail's link: the session opens this task only. */
  taskId?: string;
}

/** A new session; the token is returned this once. `download` is always granted. */
export async function createOperatorSession(db: Db, project: ProjectRow, input: NewOperatorSession): Promise<{ session: OperatorSessionRow; token: string }> {
  const token = `${OPERATOR_TOKEN_PREFIX}${randomToken(32)}`;
  const permissions = OPERATOR_PERMISSIONS.filter((p) => p === 'download' || input.permissions.includes(p));
  const now = new Date();
  const values = {
    id: newId('ops'),
    projectId: project.id,
    operatorId: input.operatorId,
    tokenHash: sha256Hex(token),
    projectKeyHash: project.apiKeyHash,
    permissions,
    locale: input.locale,
    taskId: input.taskId ?? null,
    expiresAt: new Date(now.getTime() + Math.min(input.expiresIn, OPERATOR_SESSION_MAX_SECONDS) * 1000),
    createdAt: now,
  };
  if (input.taskId !== undefined) {
    const [session] = await db.insert(operatorSessions).values(values).returning();
    return { session: session!, token };
  }
  const session = await db.transaction(async (tx) => {
    // One minter per project at a time, so the count and the insert agree.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`operator-sessions:${project.id}`}))`);
    const [held] = await tx
      .select({ n: count() })
      .from(operatorSessions)
      .where(and(eq(operatorSessions.projectId, project.id), gt(operatorSessions.expiresAt, now), isNull(operatorSessions.taskId)));
    if ((held?.n ?? 0) >= MAX_OPERATOR_SESSIONS) {
      throw new DomainError('limit_reached', `this project holds ${MAX_OPERATOR_SESSIONS} operator sessions that have not expired (revoked ones count until their expiry); wait for some to expire`);
    }
    const [inserted] = await tx.insert(operatorSessions).values(values).returning();
    return inserted!;
  });
  return { session, token };
}

/**
 * Ends a session of the project at once, in this process and (through the NOTIFY) in every other.
 * Revoking it again answers the same and does nothing: no write, no notice, no cache forgotten.
 */
export async function revokeOperatorSession(db: Db, projectId: string, sessionId: string): Promise<void> {
  const [row] = await db
    .update(operatorSessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(operatorSessions.id, sessionId), eq(operatorSessions.projectId, projectId), isNull(operatorSessions.revokedAt)))
    .returning({ id: operatorSessions.id });
  if (row) return projectChanged(db, projectId);
  // Revoking twice is not an error; another project's session is exactly a missing one.
  const [exists] = await db.select({ id: operatorSessions.id }).from(operatorSessions).where(and(eq(operatorSessions.id, sessionId), eq(operatorSessions.projectId, projectId)));
  if (!exists) throw DomainError.notFound('operator session');
}

/**
 * Deletes sessions whose expiry has passed (revoked ones go at their expiry too), `batch` at a
 * time and at most `maxBatches` batches a pass; whatever is left waits for the next pass.
 * Nothing reads a session after its expiry, so nothing is forgotten from any cache.
 */
export async function purgeEndedSessions(db: Db, opts: { batch: number; maxBatches: number; now?: Date; onBatch?: () => void }): Promise<number> {
  const now = opts.now ?? new Date();
  let purged = 0;
  for (let i = 0; i < opts.maxBatches; i++) {
    const due = db.select({ id: operatorSessions.id }).from(operatorSessions).where(lte(operatorSessions.expiresAt, now)).limit(opts.batch);
    const gone = await db.delete(operatorSessions).where(inArray(operatorSessions.id, due)).returning({ id: operatorSessions.id });
    purged += gone.length;
    opts.onBatch?.();
    if (gone.length < opts.batch) break;
  }
  return purged;
}

/** The page a session opens: the token in the fragment, which no browser sends to a server or puts in a Referer. */
export const operatorSessionUrl = (publicBaseUrl: string, token: string): string => `${publicBaseUrl.replace(/\/+$/, '')}/operator#token=${token}`;

/** A session (not revoked) and its project, by token: one indexed lookup, as for a project key. */
export async function sessionByToken(db: Db, token: string): Promise<{ session: OperatorSessionRow; project: ProjectRow } | undefined> {
  const [row] = await db
    .select({ session: operatorSessions, project: projects })
    .from(operatorSessions)
    .innerJoin(projects, eq(projects.id, operatorSessions.projectId))
    .where(and(eq(operatorSessions.tokenHash, sha256Hex(token)), isNull(operatorSessions.revokedAt)));
  return row;
}

/** Whether the session opens its project at `now`. */
export const sessionValid = (s: OperatorSessionRow, p: ProjectRow, now: number): boolean => s.revokedAt === null && s.expiresAt.getTime() > now && keyStillValid(p, s.projectKeyHash, now);

/** The session as the API shows it (the token only at creation). */
export function operatorSessionJson(s: OperatorSessionRow, extra: { token?: string; url?: string } = {}) {
  return {
    session_id: s.id,
    ...(extra.token ? { token: extra.token, url: extra.url } : {}),
    operator_id: s.operatorId,
    permissions: s.permissions,
    expires_at: s.expiresAt.toISOString(),
    locale: s.locale,
  };
}
