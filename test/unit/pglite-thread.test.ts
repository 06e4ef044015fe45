// The embedded start's database on a thread of its own (db/pglite-thread.ts): migrated, queried and
// listened to over its wire from the opening thread, the same address served to another client (the
// worker process's), everything on disk after close, and the thread's work off the opener's event loop.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, rowsOf } from '../../db/client.js';

const dir = mkdtempSync(join(tmpdir(), 'dc-pglite-thread-'));
const opened: Database[] = [];
const open = async () => {
  const database = await openDatabase({ dataDir: dir, thread: true });
  opened.push(database);
  return database;
};

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

describe('PGlite on a thread of its own', () => {
  it('migrates, answers, notifies and serves its wire; its data outlives a close', { timeout: 120_000 }, async () => {
    const database = await open();
    expect(database.kind).toBe('pglite');
    await database.migrate();
    await database.ping();
    await database.db.execute(sql`create table thread_check (id int primary key, note text)`);
    await database.db.execute(sql`insert into thread_check values (${1}, ${'kept'})`);

    const heard: string[] = [];
    let connected = 0;
    const unlisten = await database.listen('thread_check', (p) => heard.push(p), () => (connected += 1));
    expect(connected).toBe(1);
    // Another process's client (the worker process's) on the address serveWire gives.
    const wire = await database.serveWire!();
    const other = postgres(wire.url, { max: 1, onnotice: () => {} });
    await other`select pg_notify('thread_check', 'from the other client')`;
    await expect.poll(() => heard).toEqual(['from the other client']);
    await other.end({ timeout: 1 });
    await unlisten();

    // A long statement runs on the thread: this event loop stays free meanwhile.
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const t0 = performance.now();
    await database.db.execute(sql`select count(*) from generate_series(1, 3000000)`);
    const took = performance.now() - t0;
    lag.disable();
    expect(took).toBeGreaterThan(100);
    expect(lag.max / 1e6).toBeLessThan(took / 2);

    await database.close();
    const again = await open();
    const rows = rowsOf<{ note: string }>(await again.db.execute(sql`select note from thread_check where id = ${1}`));
    expect(rows).toEqual([{ note: 'kept' }]);
    await again.close();
  });

  it('says why when the data directory cannot be opened', async () => {
    await expect(openDatabase({ dataDir: '/dev/null/no-such-place', thread: true })).rejects.toThrow(/ENOTDIR/);
  });
});
