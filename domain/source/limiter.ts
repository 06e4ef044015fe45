// Politeness towards a project's source (docs/adr/0010-source-politeness-limiter.md): at most
// `maxConcurrency` requests in flight across all of the project's tasks, lanes and workers, and
// optionally at most `rps` requests a second.
//
// Postgres: slot k of a project is the row (project, k) of source_slots, taken by a short upsert
// that succeeds only when the row is free or its lease has run out, renewed while it is held and
// freed by a short update (docs/adr/0026-source-requests-under-faults.md). No connection is held
// while a request runs, so slow sources cannot use up the pool and starve other projects; a
// process that dies leaves its slots to expire within SLOT_LEASE_MS. PGlite (the embedded default)
// is one process, so an in-memory count does.
// The rate limit needs no shared clock: a request keeps its slot for at least maxConcurrency / rps
// seconds, so the slots together start no more than rps requests a second (bursts ≤ maxConcurrency).
import { randomUUID } from 'node:crypto';
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

/** The free function tryOnce yields, or the abort: a slot taken after the abort is given back. */
function abortable(attempt: Promise<(() => Promise<void>) | null>, signal?: AbortSignal): Promise<(() => Promise<void>) | null> {
  if (!signal) return attempt;
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      reject(signal.reason as Error);
      void attempt.then((free) => free?.()).catch(() => {});
    };
    // Aborted already: the attempt has started (it may hold a slot), so it is given back too.
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    attempt.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Polls tryOnce with a growing, jittered pause until it yields a release function; abortable throughout. */
async function acquireLoop(tryOnce: () => Promise<(() => Promise<void>) | null>, limits: SourceLimits, signal?: AbortSignal): Promise<Permit> {
  let pause = 10;
  for (;;) {
    // Before an attempt, not after it: an attempt that took a slot must not be dropped by the throw.
    signal?.throwIfAborted();
    const free = await abortable(tryOnce(), signal);
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

/** How long a held slot survives its holder without a renewal (a process that died or hangs). */
export const SLOT_LEASE_MS = 30_000;

/**
 * This process's takers of one key: never more of them trying or holding a slot than the key has
 * slots, and a slot given back wakes the next at once. So the database is asked only by takers that
 * could get a slot: 30 exports of one project polled source_slots 601 times for 60 slots without it
 * (each poll a query on PGlite's thread in the embedded start).
 */
class LocalGate {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  get idle(): boolean {
    return this.active === 0 && this.queue.length === 0;
  }

  enter(max: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.active < max) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener('abort', onAbort);
        this.active += 1;
        resolve();
      };
      const onAbort = () => {
        this.queue.splice(this.queue.indexOf(go), 1);
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(go);
    });
  }

  leave(): void {
    this.active -= 1;
    this.queue.shift()?.();
  }
}

export class PgSourceLimiter implements SourceLimiter {
  private readonly sql: postgres.Sql;
  private readonly process = randomUUID();
  private readonly held = new Set<string>();
  private readonly gates = new Map<string, LocalGate>();
  private seq = 0;
  private readonly renewal: NodeJS.Timeout;

  /** `maxConnections` bounds the pool of short queries; held slots take none. */
  constructor(url: string, maxConnections: number, private readonly leaseMs = SLOT_LEASE_MS) {
    this.sql = postgres(url, { max: maxConnections, idle_timeout: 10, onnotice: () => {} });
    // One statement renews every slot this process holds, a few times per lease.
    this.renewal = setInterval(() => void this.renew().catch(() => {}), Math.max(50, leaseMs / 3));
    this.renewal.unref();
  }

  async acquire(key: string, limits: SourceLimits, signal?: AbortSignal): Promise<Permit> {
    const gate = this.gates.get(key) ?? new LocalGate();
    this.gates.set(key, gate);
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      gate.leave();
      if (gate.idle) this.gates.delete(key);
    };
    try {
      await gate.enter(limits.maxConcurrency, signal);
    } catch (err) {
      if (gate.idle) this.gates.delete(key);
      throw err;
    }
    try {
      const permit = await acquireLoop(() => this.tryTake(key, limits.maxConcurrency), limits, signal);
      return { release: () => permit.release().finally(leave) };
    } catch (err) {
      leave();
      throw err;
    }
  }

  /**
   * Takes the lowest free slot in one statement: the upsert's condition is checked again on a row
   * another holder just took, so two takers never both get it (the loser gets no row back).
   */
  private async tryTake(key: string, max: number): Promise<(() => Promise<void>) | null> {
    const holder = `${this.process}:${++this.seq}`;
    const [row] = await this.sql`
      insert into source_slots (key, slot, holder, expires_at)
      select ${key}, s, ${holder}, now() + ${this.leaseMs} * interval '1 millisecond'
        from generate_series(0, ${max - 1}::int) s
        where not exists (select 1 from source_slots h where h.key = ${key} and h.slot = s and h.expires_at > now())
        order by s limit 1
      on conflict (key, slot) do update set holder = excluded.holder, expires_at = excluded.expires_at
        where source_slots.expires_at <= now()
      returning slot`;
    if (!row) return null;
    this.held.add(holder);
    return async () => {
      this.held.delete(holder);
      await this.sql`update source_slots set expires_at = '-infinity' where key = ${key} and slot = ${row.slot as number} and holder = ${holder}`;
    };
  }

  /** Only live leases: a release racing this statement on another connection must stay released. */
  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    await this.sql`update source_slots set expires_at = now() + ${this.leaseMs} * interval '1 millisecond' where holder = any(${this.sql.array([...this.held])}::text[]) and expires_at > now()`;
  }

  close(): Promise<void> {
    clearInterval(this.renewal);
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
