// The Postgres politeness limiter (domain/source/limiter.ts) on a real database: held slots take no
// pooled connection (more slots than the pool has connections, other projects still served), a
// wait is abortable, the cap holds across processes, and a dead holder's slots expire.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { LocalSourceLimiter, PgSourceLimiter, type Permit } from '../../domain/source/limiter.js';
import { createDatabase, dropDatabase } from '../support/env.js';

let url: string;
const limiters: PgSourceLimiter[] = [];
const limiter = (pool: number, leaseMs?: number) => {
  const l = new PgSourceLimiter(url, pool, leaseMs);
  limiters.push(l);
  return l;
};
const limits = (maxConcurrency: number) => ({ maxConcurrency, rps: null });
const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);

beforeAll(async () => {
  url = await createDatabase();
  const database = await openDatabase({ url, dataDir: '/tmp' });
  await database.migrate();
  await database.close();
});

afterAll(async () => {
  await Promise.all(limiters.map((l) => l.close()));
  if (url) await dropDatabase(url);
});

describe('PgSourceLimiter', () => {
  it('holds more slots than its pool has connections, and other projects are still served', async () => {
    const l = limiter(2);
    const held = await within(Promise.all(Array.from({ length: 6 }, () => l.acquire('slow-project', limits(8)))), 3000);
    const other = await within(l.acquire('other-project', limits(8)), 1000);
    await other.release();
    await Promise.all(held.map((p) => p.release()));
  });

  it('never gives out more slots than the limit, across limiters (processes)', async () => {
    const a = limiter(2);
    const b = limiter(2);
    let inFlight = 0;
    let most = 0;
    const one = async (l: PgSourceLimiter) => {
      const p = await l.acquire('capped', limits(3));
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight -= 1;
      await p.release();
    };
    await within(Promise.all(Array.from({ length: 24 }, (_, i) => one(i % 2 ? a : b))), 20_000);
    expect(most).toBe(3);
  });

  it('asks the database only for takers that could get a slot: one given back goes to the next taker of the process', async () => {
    const l = limiter(2);
    // Counting the process's attempts at the database (tryTake is private to the limiter).
    const inner = l as unknown as { tryTake: (...a: unknown[]) => Promise<unknown> };
    const take = inner.tryTake.bind(l);
    let tries = 0;
    inner.tryTake = (...a) => ((tries += 1), take(...a));
    let inFlight = 0;
    let most = 0;
    const one = async () => {
      const p = await l.acquire('local-queue', limits(2));
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 10));
      inFlight -= 1;
      await p.release();
    };
    await within(Promise.all(Array.from({ length: 20 }, one)), 10_000);
    expect(most).toBe(2);
    // One attempt a slot, but for two takers racing for the same lowest free slot (the loser tries
    // again). Without the process's own queue every waiter polled: about ten attempts a slot.
    expect(tries).toBeLessThanOrEqual(30);
  });

  it('returns promptly from an aborted wait, and a slot freed later goes to the next taker', async () => {
    const l = limiter(2);
    const held: Permit = await l.acquire('busy', limits(1));
    const ctl = new AbortController();
    const waiting = l.acquire('busy', limits(1), ctl.signal);
    setTimeout(() => ctl.abort(new Error('stopped')), 200);
    const started = Date.now();
    await expect(waiting).rejects.toThrow('stopped');
    expect(Date.now() - started).toBeLessThan(500);
    await held.release();
    await (await within(l.acquire('busy', limits(1)), 1000)).release();
  });

  it('returns an aborted wait promptly even when every pooled connection is busy', async () => {
    const l = limiter(1);
    const sql = (l as unknown as { sql: import('postgres').Sql }).sql;
    // The only connection is taken by a long query: the next try cannot even start.
    const blocker = sql`select pg_sleep(2)`.then(() => {});
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('stopped')), 200);
    const started = Date.now();
    await expect(l.acquire('pool-busy', limits(1), ctl.signal)).rejects.toThrow('stopped');
    expect(Date.now() - started).toBeLessThan(600);
    await blocker;
  });

  it('renews a held slot past its lease, and frees the slots of a holder that stopped renewing', async () => {
    const alive = limiter(2, 600);
    const held = await alive.acquire('leased', limits(1));
    const other = limiter(2, 600);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('still held')), 1500);
    await expect(other.acquire('leased', limits(1), ctl.signal)).rejects.toThrow('still held');
    // The holder dies (no renewal, no release): its slot is free once the lease runs out.
    await alive.close();
    limiters.splice(limiters.indexOf(alive), 1);
    const started = Date.now();
    await (await within(other.acquire('leased', limits(1)), 3000)).release();
    expect(Date.now() - started).toBeLessThan(1500);
    void held;
  });
});

describe('an already aborted wait', () => {
  // A preview whose other sheet failed asks for its next page with the signal already aborted.
  it('takes no slot, on either limiter: the next taker gets it at once', async () => {
    const aborted = AbortSignal.abort(new Error('stopped'));
    const local = new LocalSourceLimiter();
    const pg = limiter(2);
    for (const l of [local, pg]) {
      for (let i = 0; i < 3; i++) await expect(l.acquire('pre-aborted', limits(1), aborted)).rejects.toThrow('stopped');
      await (await within(l.acquire('pre-aborted', limits(1)), 1000)).release();
    }
  });
});
