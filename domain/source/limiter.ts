// Politeness towards a project's source (docs/adr/0010-source-politeness-limiter.md): at most
// `maxConcurrency` requests in flight across all of the project's tasks, lanes and workers, and
// optionally at most `rps` requests a second.
//
// Postgres: slot k of a project is the session advisory lock (hash(project), k). Postgres frees
// the locks of a dead worker's connections by itself, so a SIGKILL never leaks a slot, and no table
// or Redis is needed. PGlite (the embedded default) is one process, so an in-memory count does.
// The rate limit needs no shared clock: a request keeps its slot for at least maxConcurrency / rps
// seconds, so the slots together start no more than rps requests a second (bursts ≤ maxConcurrency).
import postgres from 'postgres';
import type { StoredSettings } from '../../model/project-settings.js';

export interface SourceLimits {
  maxConcurrency: number;
  /** Requests per second; null for no limit. */
  rps: number | null;
}

export interface Permit {
  /** Frees the slot once the minimum hold of the rate limit has passed. */
  release(): Promise<void>;
}

export interface SourceLimiter {
  acquire(key: string, limits: SourceLimits, signal?: AbortSignal): Promise<Permit>;
  close(): Promise<void>;
}

/** The limits a project's settings ask for. */
export function sourceLimits(settings: StoredSettings): SourceLimits {
  return { maxConcurrency: settings.source_max_concurrency, rps: settings.source_rps };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Polls tryOnce with a growing, jittered pause until it yields a release function. */
async function acquireLoop(tryOnce: () => Promise<(() => Promise<void>) | null>, limits: SourceLimits, signal?: AbortSignal): Promise<Permit> {
  let pause = 10;
  for (;;) {
    const free = await tryOnce();
    if (free) {
      const heldUntil = Date.now() + (limits.rps ? (limits.maxConcurrency * 1000) / limits.rps : 0);
      return {
        async release() {
          const wait = heldUntil - Date.now();
          if (wait > 0) await sleep(wait);
          await free();
        },
      };
    }
    await sleep(pause * (0.5 + Math.random()), signal);
    pause = Math.min(pause * 1.5, 200);
  }
}

/** FNV-1a to a signed 32-bit int: the first key of the two-key advisory lock. */
function lockClass(key: string): number {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(`source:${key}`)) h = Math.imul(h ^ ch, 0x01000193);
  return h | 0;
}

export class PgSourceLimiter implements SourceLimiter {
  private readonly sql: postgres.Sql;
  constructor(url: string, maxConnections: number) {
    // A pool of its own: a held slot pins its connection for the length of one request.
    this.sql = postgres(url, { max: maxConnections, idle_timeout: 10, onnotice: () => {} });
  }

  acquire(key: string, limits: SourceLimits, signal?: AbortSignal): Promise<Permit> {
    const cls = lockClass(key);
    return acquireLoop(
      async () => {
        const conn = await this.sql.reserve();
        try {
          // LIMIT 1 stops the scan at the first lock taken, so at most one slot is held.
          const [row] = await conn`select s from generate_series(0, ${limits.maxConcurrency - 1}::int) s where pg_try_advisory_lock(${cls}::int, s) limit 1`;
          if (!row) {
            conn.release();
            return null;
          }
          const slot = row.s as number;
          return async () => {
            try {
              await conn`select pg_advisory_unlock(${cls}::int, ${slot}::int)`;
            } finally {
              conn.release();
            }
          };
        } catch (err) {
          conn.release();
          throw err;
        }
      },
      limits,
      signal,
    );
  }

  close(): Promise<void> {
    return this.sql.end({ timeout: 5 });
  }
}

export class LocalSourceLimiter implements SourceLimiter {
  private readonly held = new Map<string, number>();

  acquire(key: string, limits: SourceLimits, signal?: AbortSignal): Promise<Permit> {
    return acquireLoop(
      async () => {
        const n = this.held.get(key) ?? 0;
        if (n >= limits.maxConcurrency) return null;
        this.held.set(key, n + 1);
        return async () => {
          this.held.set(key, (this.held.get(key) ?? 1) - 1);
        };
      },
      limits,
      signal,
    );
  }

  async close(): Promise<void> {}
}
