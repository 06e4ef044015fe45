// The operator session of a token, remembered for a few seconds beside the project keys
// (key-cache.ts): the same TTL, and forgotten with them on any project change or revocation, here
// at once and in other processes through the NOTIFY. A hit costs what a project key's does: a
// hash and a map lookup; the entry never outlives the session's expiry.
import type { Database } from '../../db/client.js';
import type { OperatorSessionRow, ProjectRow } from '../../db/schema.js';
import { sha256Hex } from '../../platform/crypto.js';
import { KEY_CACHE_TTL_MS, listening } from './key-cache.js';
import { sessionByToken, sessionValid } from './sessions.js';

/** The live session of a token and its project, or undefined (unknown, revoked, expired, ended by a key rotation). */
export async function cachedOperatorSession(database: Database, token: string): Promise<{ session: OperatorSessionRow; project: ProjectRow } | undefined> {
  const cache = listening(database);
  const hash = sha256Hex(token);
  const now = Date.now();
  const hit = cache.sessionsByHash.get(hash);
  if (hit && hit.until > now) return sessionValid(hit.session, hit.project, now) ? hit : undefined;
  cache.sessionsByHash.delete(hash);
  const generation = cache.generation;
  const found = await cache.shared(`session:${hash}`, () => sessionByToken(database.db, token));
  if (!found || !sessionValid(found.session, found.project, now)) return undefined;
  if (generation === cache.generation) {
    const grace = found.project.apiKeyHash === found.session.projectKeyHash ? Infinity : (found.project.previousKeyExpiresAt?.getTime() ?? now);
    cache.sessionsByHash.set(hash, { ...found, until: Math.min(now + KEY_CACHE_TTL_MS, found.session.expiresAt.getTime(), grace) });
  }
  return found;
}
