// A transaction whose connection is reset (ECONNRESET: a restart, a failover, a dropped link) while
// its query runs. The driver rejects that query, and the transaction's ROLLBACK is sent before the
// socket's 'close' event. Before our patch of the driver (patches/), that ROLLBACK outlived the
// socket: once the connection was used again it took the answer of the next transaction's query,
// which then waited forever (docs/adr/0036-database-restarts.md). The restarts of
// db-driver-restart.test.ts reach this only now and then; a reset through a proxy reaches it every time.
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, rowsOf } from '../../db/client.js';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { pgAdminUrl } from '../support/pg.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// Constant queries only: the run's server's own database is never written.
const SERVER = pgAdminUrl();
const SLEEP = 'select pg_sleep(4.5)';

let proxy: TcpProxy;
let database: Database;
let admin: postgres.Sql;

/** A caller left waiting forever shows as this rejection rather than as the test's own timeout. */
function within<T>(what: string, p: Promise<T>, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function until(what: string, cond: () => boolean | Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
    if (await cond()) return;
  }
  throw new Error(`${what}: not within 5 s`);
}

const sleeping = async () =>
  (await admin`select count(*)::int as n from pg_stat_activity where query = ${SLEEP} and state = 'active'`)[0]!.n > 0;

beforeAll(async () => {
  proxy = await startTcpProxy(SERVER);
  const through = new URL(SERVER);
  through.port = new URL(proxy.url).port;
  database = await openDatabase({ url: through.toString(), dataDir: '/nonexistent' });
  admin = postgres(SERVER, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await database?.close();
  await admin?.end();
  await proxy?.close();
});

describe('the postgres driver when a transaction’s connection is reset', () => {
  it('rejects that transaction, and every later transaction on the pool gets its own answer', async () => {
    const { db } = database;
    const lost = db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      await tx.execute(sql.raw(SLEEP));
    });
    await until(`${SLEEP} running`, sleeping);
    expect(proxy.cut('reset')).toBeGreaterThan(0);
    const err = await within('the reset transaction', lost).then(() => undefined, (e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);

    // More at once than the pool has connections, so the reset one is among those used again.
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        within(
          `transaction ${i}`,
          db.transaction(async (tx) => {
            await tx.execute(sql`select ${i}::int as i`);
            return rowsOf<{ d: number }>(await tx.execute(sql`select ${i}::int * 2 as d`))[0]!.d;
          }),
        ),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => i * 2));
  }, 30_000);

  it('runs nothing more of a transaction whose connection was reset, once that connection serves others', async () => {
    const { db } = database;
    let began!: () => void;
    let resume!: () => void;
    const idle = new Promise<void>((r) => (began = r));
    const later = new Promise<void>((r) => (resume = r));
    let late: Promise<unknown> | undefined;
    const lost = db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      began();
      await later; // the caller's own work between two queries of its transaction
      late = tx.execute(sql`select 2`);
      await late;
    });
    await idle;
    expect(proxy.cut('reset')).toBeGreaterThan(0);
    expect(isDatabaseUnavailable(await within('the reset transaction', lost).then(() => undefined, (e: unknown) => e))).toBe(true);

    // Every connection of the pool in a transaction of another caller when the first one goes on:
    // its query would run in one of theirs (and its COMMIT would commit it) if the driver sent it.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let open = 0;
    const others = Array.from({ length: 10 }, (_, i) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select ${i}::int as i`);
        open++;
        await held;
        return rowsOf<{ d: number }>(await tx.execute(sql`select ${i}::int * 2 as d`))[0]!.d;
      }),
    );
    await until('ten transactions open', () => open === 10);
    resume();
    await new Promise((r) => setTimeout(r, 10));
    expect(isDatabaseUnavailable(await within('the late query', late!).then(() => undefined, (e: unknown) => e))).toBe(true);
    release();
    expect(await within('the other transactions', Promise.all(others))).toEqual(Array.from({ length: 10 }, (_, i) => i * 2));
  }, 30_000);
});
