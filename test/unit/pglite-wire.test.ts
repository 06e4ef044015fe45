// PGlite served over the Postgres protocol (db/wire.ts), as the embedded start's worker process
// reaches it: clients and in-process queries share one session, so each exchange and transaction must
// hold it whole. Checked with postgres.js (the driver the worker uses) against a real PGlite.
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenStatement, readyStatus, serveOverWire, type WireServer } from '../../db/wire.js';

let pg: PGlite;
let wire: WireServer;
let sql: postgres.Sql;

beforeAll(async () => {
  pg = await PGlite.create();
  await pg.exec('create table counter (id int primary key, n int not null); insert into counter values (1, 0);');
  wire = await serveOverWire(pg);
  sql = postgres(wire.url, { max: 4, onnotice: () => {} });
});

afterAll(async () => {
  await sql?.end({ timeout: 1 });
  await wire?.close();
  await pg?.close();
});

const count = async () => (await pg.query<{ n: number }>('select n from counter where id = 1')).rows[0]!.n;

describe('PGlite over the wire', () => {
  it('keeps transactions whole across wire clients and in-process ones (no lost update)', async () => {
    const before = await count();
    const pause = () => new Promise((r) => setTimeout(r, 1));
    await Promise.all([
      ...Array.from({ length: 40 }, () =>
        sql.begin(async (tx) => {
          const [row] = await tx<{ n: number }[]>`select n from counter where id = 1`;
          await pause();
          await tx`update counter set n = ${row!.n + 1} where id = 1`;
        }),
      ),
      ...Array.from({ length: 40 }, () =>
        pg.transaction(async (tx) => {
          const { rows } = await tx.query<{ n: number }>('select n from counter where id = 1');
          await pause();
          await tx.query('update counter set n = $1 where id = 1', [rows[0]!.n + 1]);
        }),
      ),
    ]);
    expect(await count()).toBe(before + 80);
  });

  it('delivers a NOTIFY sent over the wire to in-process listeners', async () => {
    const heard: string[] = [];
    const unlisten = await pg.listen('wire_test', (p) => heard.push(p));
    await Promise.all(Array.from({ length: 10 }, (_, i) => sql`select pg_notify('wire_test', ${String(i)})`));
    await expect.poll(() => heard.length).toBe(10);
    expect(heard.sort()).toEqual(Array.from({ length: 10 }, (_, i) => String(i)).sort());
    await unlisten();
  });

  it('delivers a NOTIFY to the wire clients listening on its channel, from any client or in-process query', async () => {
    const a = postgres(wire.url, { max: 1, onnotice: () => {} });
    const b = postgres(wire.url, { max: 1, onnotice: () => {} });
    try {
      const heardA: string[] = [];
      const heardB: string[] = [];
      const listenA = await a.listen('Wire Channel', (p) => heardA.push(p));
      await b.listen('other_channel', (p) => heardB.push(`other:${p}`));
      const listenB = await b.listen('Wire Channel', (p) => heardB.push(p));
      await sql`select pg_notify('Wire Channel', 'from a wire client')`;
      await pg.query(`select pg_notify('Wire Channel', 'in process')`);
      await expect.poll(() => heardA.length).toBe(2);
      await expect.poll(() => heardB.length).toBe(2);
      expect(heardA.sort()).toEqual(['from a wire client', 'in process']);
      // B's UNLISTEN takes B off the channel only: A and the shared session still hear it.
      await listenB.unlisten();
      await sql`select pg_notify('Wire Channel', 'after B left')`;
      await expect.poll(() => heardA.length).toBe(3);
      await new Promise((r) => setTimeout(r, 50));
      expect(heardB).toEqual(expect.not.arrayContaining(['after B left']));
      await sql`select pg_notify('other_channel', 'still')`;
      await expect.poll(() => heardB).toContain('other:still');
      await listenA.unlisten();
    } finally {
      await Promise.all([a.end({ timeout: 1 }), b.end({ timeout: 1 })]);
    }
  });

  it('answers every exchange a client waits on: unprepared (after a Flush), prepared and simple', async () => {
    const one = postgres(wire.url, { max: 1, onnotice: () => {}, prepare: false });
    try {
      expect((await one`select ${'unprepared'}::text as t`)[0]).toEqual({ t: 'unprepared' });
      expect((await sql`select ${'prepared'}::text as t`)[0]).toEqual({ t: 'prepared' });
      expect((await one.unsafe('select 7 as n'))[0]).toEqual({ n: 7 });
      // Pipelined: several exchanges sent before the first answer, each answered in order.
      expect(await Promise.all([1, 2, 3].map(async (n) => (await sql`select ${n}::int as n`)[0]!.n))).toEqual([1, 2, 3]);
    } finally {
      await one.end({ timeout: 1 });
    }
  });

  it('reads LISTEN and UNLISTEN statements as the server names their channel', () => {
    expect(listenStatement('listen "Task Events"')).toEqual({ listen: true, channel: 'Task Events' });
    expect(listenStatement('  LISTEN Task_Events ; ')).toEqual({ listen: true, channel: 'task_events' });
    expect(listenStatement('unlisten "a""b"')).toEqual({ listen: false, channel: 'a"b' });
    expect(listenStatement('UNLISTEN *')).toEqual({ listen: false, channel: '*' });
    expect(listenStatement("select 'listen x'")).toBeUndefined();
    expect(listenStatement('listen x; drop table y')).toBeUndefined();
  });

  it('answers errors, rolls back a failed transaction and keeps serving', async () => {
    const before = await count();
    await expect(sql`select 1 / 0`).rejects.toThrow(/division by zero/);
    await expect(
      sql.begin(async (tx) => {
        await tx`update counter set n = -1 where id = 1`;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await count()).toBe(before);
    expect(pg.isInTransaction()).toBe(false);
    expect((await sql`select 41 + 1 as x`)[0]).toEqual({ x: 42 });
  });

  it('rolls back what a client that vanished mid-transaction left open, and forgets its statements', async () => {
    const before = await count();
    const named = async () => Number((await pg.query<{ c: string }>('select count(*)::text as c from pg_prepared_statements')).rows[0]!.c);
    const others = await named(); // the other clients'
    const one = postgres(wire.url, { max: 1, onnotice: () => {} });
    await one`select n from counter where id = ${1}`; // a named prepared statement
    expect(await named()).toBeGreaterThan(others);
    const inside = one.begin(async (tx) => {
      await tx`update counter set n = n + 1000 where id = 1`;
      await new Promise(() => {}); // never commits
    });
    inside.catch(() => {});
    await new Promise((r) => setTimeout(r, 50));
    // The client is cut (as a killed worker process's sockets are): its transaction must not stay.
    await one.end({ timeout: 0 });
    await expect.poll(() => count(), { timeout: 5000 }).toBe(before);
    expect(pg.isInTransaction()).toBe(false);
    await expect.poll(named).toBe(others);
  });

  it('reads the status of the last ReadyForQuery in an answer', () => {
    const z = (s: string) => Buffer.from([0x5a, 0, 0, 0, 5, s.charCodeAt(0)]);
    const complete = Buffer.from([0x43, 0, 0, 0, 10, ...Buffer.from('BEGIN\0')]);
    expect(readyStatus(Buffer.concat([complete, z('T')]))).toBe('T');
    expect(readyStatus(Buffer.concat([z('T'), complete, z('I')]))).toBe('I');
    expect(readyStatus(complete)).toBeUndefined();
  });
});
