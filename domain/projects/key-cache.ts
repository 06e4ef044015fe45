// The project of an API key, remembered for a few seconds: every request is authenticated, and on
// the embedded database the lookup costs more than the rest of a submission's own work.
// A change to a project (settings, key or secret rotation: admin.ts) forgets the cache of this
// process at once and, through a NOTIFY, of every other process; a reconnect of the listening
// connection forgets everything (a notice may have been missed), and an entry lives at most
// KEY_CACHE_TTL_MS in any case. A rotated-out key within its grace period is kept only until it expires.
// Operator sessions (session-cache.ts) are kept here too, and forgotten with the keys.
import { sql } from 'drizzle-orm';
import type { Database, Db } from '../../db/client.js';
import type { OperatorSessionRow, ProjectRow } from '../../db/schema.js';
import { sha256Hex } from '../../platform/crypto.js';
import { logger } from '../../platform/logger.js';
import { keyStillValid, projectByApiKey } from './projects.js';

export const PROJECT_EVENTS_CHANNEL = 'project_events';
export const KEY_CACHE_TTL_MS = 5_000;

interface Entry {
  project: ProjectRow;
  until: number;
}

export class KeyCache {
  readonly byHash = new Map<string, Entry>();
  /** Operator sessions by token hash (session-cache.ts): forgotten with the keys. */
  readonly sessionsByHash = new Map<string, { session: OperatorSessionRow; project: ProjectRow; until: number }>();
  /** Bumped by every forget: a lookup that began before one must not store what it read. */
  generation = 0;
  /** Told of every forget: holders of long-lived credentials (WebSockets) check theirs again. */
  readonly watchers = new Set<() => void>();
  forget(): void {
    this.byHash.clear();
    this.sessionsByHash.clear();
    this.generation++;
    for (const w of this.watchers) w();
  }
  listening: Promise<unknown> | undefined;
  private readonly inflight = new Map<string, Promise<unknown>>();
  /**
   * One database read per key and generation at a time: after a change every open socket checks
   * its credential at once, and sockets sharing a key share the read.
   */
  shared<T>(key: string, load: () => Promise<T>): Promise<T> {
    const k = `${this.generation}:${key}`;
    let p = this.inflight.get(k) as Promise<T> | undefined;
    if (!p) {
      p = load().finally(() => this.inflight.delete(k));
      this.inflight.set(k, p);
    }
    return p;
  }
}

// One cache per database handle: the processes' API apps (and tests' several apps) share it.
const caches = new WeakMap<Db, KeyCache>();

function cacheOf(db: Db): KeyCache {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = new KeyCache()));
  return c;
}

/** This process's cache of the database, listening for other processes' changes from its first use. */
export function listening(database: Database): KeyCache {
  const cache = cacheOf(database.db);
  cache.listening ??= database
    .listen(PROJECT_EVENTS_CHANNEL, () => cache.forget(), () => cache.forget())
    .catch((err: Error) => logger('auth').error({ err, channel: PROJECT_EVENTS_CHANNEL }, 'cannot LISTEN; API keys are cached for their TTL only'));
  return cache;
}

/** projectByApiKey through the cache. */
export async function cachedProjectByApiKey(database: Database, apiKey: string): Promise<ProjectRow | undefined> {
  const cache = listening(database);
  const hash = sha256Hex(apiKey);
  const now = Date.now();
  const hit = cache.byHash.get(hash);
  if (hit && hit.until > now && keyStillValid(hit.project, hash, now)) return hit.project;
  cache.byHash.delete(hash);
  const generation = cache.generation;
  const project = await cache.shared(`key:${hash}`, () => projectByApiKey(database.db, apiKey));
  if (project && generation === cache.generation) {
    const expiry = project.apiKeyHash === hash ? Infinity : (project.previousKeyExpiresAt?.getTime() ?? now);
    cache.byHash.set(hash, { project, until: Math.min(now + KEY_CACHE_TTL_MS, expiry) });
  }
  return project;
}

/** Calls fn whenever a project's keys or settings may have changed (in this process or another). */
export function onProjectsChanged(db: Db, fn: () => void): () => void {
  const cache = cacheOf(db);
  cache.watchers.add(fn);
  return () => cache.watchers.delete(fn);
}

/** After a project changed: this process forgets at once, the others when the notice reaches them. */
export async function projectChanged(db: Db, projectId: string): Promise<void> {
  cacheOf(db).forget();
  await db.execute(sql`select pg_notify(${PROJECT_EVENTS_CHANNEL}, ${projectId})`);
}
