// drizzle's queries reach Postgres as prepared statements (db/prepared.ts), inside transactions too,
// up to the bound of distinct texts; past it they still run, unprepared.
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparing } from '../../db/prepared.js';
import { createDatabase, dropDatabase } from '../support/env.js';

let url: string;
const clients: postgres.Sql[] = [];
// One connection, so pg_prepared_statements is the session every query ran on.
const open = (max?: number) => {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  clients.push(client);
  return drizzle(preparing(client, max));
};
const preparedTexts = async (db: ReturnType<typeof open>) =>
  // Less postgres.js's own look-up of the array types, prepared on every connection.
  (await db.execute<{ statement: string }>(sql`select statement from pg_prepared_statements where statement not like '%pg_catalog.pg_type%'`)).map((r) => r.statement);

beforeAll(async () => {
  url = await createDatabase();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.end({ timeout: 5 })));
  if (url) await dropDatabase(url);
});

describe('prepared statements', () => {
  it('prepares a parameterised query, and one in a transaction', async () => {
    const db = open();
    const rows = await db.execute<{ n: number }>(sql`select ${41}::int + 1 as n`);
    expect(rows[0]!.n).toBe(42);
    await db.transaction(async (tx) => {
      await tx.execute(sql`select ${'in a transaction'}::text as t`);
    });
    const texts = await preparedTexts(db);
    expect(texts).toContain('select $1::int + 1 as n');
    expect(texts).toContain('select $1::text as t');
  });

  it('prepares no more distinct texts than its bound; later ones still run', async () => {
    const db = open(2);
    for (const k of [1, 2, 3, 4]) {
      const rows = await db.execute<{ n: number }>(sql.join([sql.raw(`select ${k}::int + `), sql`${k}::int as n`]));
      expect(rows[0]!.n).toBe(2 * k);
    }
    expect((await preparedTexts(db)).sort()).toEqual(['select 1::int + $1::int as n', 'select 2::int + $1::int as n']);
  });
});
