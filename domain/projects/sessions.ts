// Operator sessions (docs/adr/0027-operator-sessions.md): a project mints a short-lived, opaque
// token for one of its operators; only its SHA-256 is stored, so a leaked table opens nothing.
// A session ends when it expires, is revoked, or when the project key current at its creation
// stops opening the project (a rotation, once its grace is over).
import { and, eq, isNull } from 'drizzle-orm';
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

export interface NewOperatorSession {
  operatorId: string;
  expiresIn: number;
  permissions: OperatorPermission[];
  locale: Locale;
}

/** A new session; the token is returned this once. `download` is always granted. */
export async function createOperatorSession(db: Db, project: ProjectRow, input: NewOperatorSession): Promise<{ session: OperatorSessionRow; token: string }> {
  const token = `${OPERATOR_TOKEN_PREFIX}${randomToken(32)}`;
  const permissions = OPERATOR_PERMISSIONS.filter((p) => p === 'download' || input.permissions.includes(p));
  const now = new Date();
  const [session] = await db
    .insert(operatorSessions)
    .values({
      id: newId('ops'),
      projectId: project.id,
      operatorId: input.operatorId,
      tokenHash: sha256Hex(token),
      projectKeyHash: project.apiKeyHash,
      permissions,
      locale: input.locale,
      expiresAt: new Date(now.getTime() + input.expiresIn * 1000),
      createdAt: now,
    })
    .returning();
  return { session: session!, token };
}

/** Ends a session of the project at once, in this process and (through the NOTIFY) in every other. */
export async function revokeOperatorSession(db: Db, projectId: string, sessionId: string): Promise<void> {
  const [row] = await db
    .update(operatorSessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(operatorSessions.id, sessionId), eq(operatorSessions.projectId, projectId), isNull(operatorSessions.revokedAt)))
    .returning({ id: operatorSessions.id });
  if (!row) {
    // Revoking twice is not an error; another project's session is exactly a missing one.
    const [exists] = await db.select({ id: operatorSessions.id }).from(operatorSessions).where(and(eq(operatorSessions.id, sessionId), eq(operatorSessions.projectId, projectId)));
    if (!exists) throw DomainError.notFound('operator session');
  }
  await projectChanged(db, projectId);
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
