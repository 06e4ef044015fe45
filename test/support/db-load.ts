// A process that keeps the database busy the way the service does (db/client.ts: drizzle over the
// `postgres` driver, short queries and transactions from many callers at once), for
// test/e2e/db-restart.test.ts: while the test restarts the server under it, every failed query must
// reject (counted), the process must not exit, and queries must succeed again once it is back.
//   node --import tsx test/support/db-load.ts <database-url>
// Prints its counts four times a second: { ok, failed, lastOkAt, codes, callerOkAt } (callerOkAt:
// each caller's last success, so a caller left waiting forever on a lost query shows).
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../db/client.js';

const url = process.argv[2]!;
const database = await openDatabase({ url, dataDir: '/nonexistent' });
const { db } = database;
await db.execute(sql`create table if not exists load_rows (id serial primary key, n int not null)`);

const CALLERS = 16;
const stats = { ok: 0, failed: 0, lastOkAt: 0, codes: {} as Record<string, number>, callerOkAt: new Array<number>(CALLERS).fill(0) };
let stopping = false;

async function one(i: number): Promise<void> {
  // Transactions are what reach the driver's own ROLLBACK after a lost connection (porsager/postgres#1208).
  if (i % 2 === 0) {
    await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_sleep(0.02)`);
      await tx.execute(sql`insert into load_rows (n) values (${i})`);
    });
  } else {
    await db.execute(sql`select count(*) from load_rows where n = ${i}`);
  }
}

async function caller(i: number): Promise<void> {
  while (!stopping) {
    try {
      await one(i);
      stats.ok++;
      stats.lastOkAt = stats.callerOkAt[i] = Date.now();
    } catch (err) {
      stats.failed++;
      const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code ?? 'unknown';
      stats.codes[code] = (stats.codes[code] ?? 0) + 1;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const callers = Array.from({ length: CALLERS }, (_, i) => caller(i));
const report = setInterval(() => console.log(JSON.stringify(stats)), 250);
process.once('SIGTERM', () => {
  stopping = true;
  void Promise.all(callers).then(async () => {
    clearInterval(report);
    console.log(JSON.stringify({ ...stats, done: true }));
    await database.close();
  });
});
