// One baseline schema (docs/adr/0041-one-baseline-schema.md): a fresh database and one made by 0.x,
// upgraded in place, have the same schema, on Postgres and on PGlite; a 0.x database with only some
// of its migrations is refused; a function file whose recorded text differs is applied again; and
// every SQL function and trigger has one definition in the tree, in db/functions/ under its name.
// The 0.x database comes from test/fixtures/schema-0.x.sql.gz: pg_dump of a database migrated by
// 0.x's 18 migrations (made once; gzipped, so its function bodies are no second source to grep).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, rowsOf } from '../../db/client.js';
import { functionsFolder } from '../../db/migrate.js';
import { pgliteOptions } from '../../db/pglite.js';
import { readCatalog } from '../support/catalog.js';
import { createDatabase, dropDatabase } from '../support/env.js';

const zeroXDump = () => gunzipSync(readFileSync(new URL('../fixtures/schema-0.x.sql.gz', import.meta.url))).toString('utf8');
const functionFiles = readdirSync(functionsFolder).filter((f) => f.endsWith('.sql')).sort();

type Kind = 'postgres' | 'pglite';
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

// PGlite's initdb takes seconds (tens on a busy machine): run once, each database loads its dump.
let emptyPglite: Promise<Blob> | undefined;
async function pgliteDataDir(fromZeroX: boolean): Promise<Blob> {
  emptyPglite ??= PGlite.create(pgliteOptions).then(async (pg) => {
    const dump = await pg.dumpDataDir('none');
    await pg.close();
    return dump;
  });
  if (!fromZeroX) return emptyPglite;
  const pg = await PGlite.create({ ...pgliteOptions, loadDataDir: await emptyPglite });
  await pg.exec(zeroXDump());
  const dump = await pg.dumpDataDir('none');
  await pg.close();
  return dump;
}

/** An empty database of the kind, or one loaded from the 0.x dump; not migrated. */
async function open(kind: Kind, fromZeroX: boolean): Promise<Database> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-schema-'));
  let database: Database;
  if (kind === 'postgres') {
    const url = await createDatabase();
    if (fromZeroX) {
      const one = postgres(url, { max: 1, onnotice: () => {} });
      await one.unsafe(zeroXDump());
      await one.end();
    }
    database = await openDatabase({ url, dataDir });
    cleanups.push(() => dropDatabase(url));
  } else {
    database = await openDatabase({ dataDir, memory: { loadDataDir: await pgliteDataDir(fromZeroX) } });
  }
  cleanups.push(async () => {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return database;
}

const journal = async (database: Database) =>
  rowsOf<{ created_at: string }>(await database.db.execute(sql`select created_at from drizzle.__drizzle_migrations order by id`)).map((r) => Number(r.created_at));

describe.each<Kind>(['postgres', 'pglite'])('%s', { timeout: 120_000 }, (kind) => {
  it('upgrades a database made by 0.x to the schema a fresh database has', async () => {
    const fresh = await open(kind, false);
    await fresh.migrate();
    const expected = await readCatalog(fresh);
    // Not vacuous: every function file made its function, and the triggers exist: the task counts'
    // four and the task events' on tasks, the kept usage's four on tasks and two on deliveries.
    expect(expected.functions.map((f) => `${(f as { proname: string }).proname}.sql`)).toEqual(functionFiles);
    expect(expected.triggers).toHaveLength(11);

    const old = await open(kind, true);
    const before = await journal(old);
    expect(before).toHaveLength(18);
    await old.migrate();
    expect(await readCatalog(old)).toEqual(expected);
    // Marked as holding the baseline, which was not run; a second migrate changes nothing.
    expect(await journal(old)).toEqual([...before, ...(await journal(fresh))]);
    await old.migrate();
    expect(await readCatalog(old)).toEqual(expected);
  });

  it('applies a function file again when its text differs from the one the database last ran', async () => {
    const database = await open(kind, false);
    await database.migrate();
    const expected = await readCatalog(database);
    await database.db.execute(sql`drop function dc_start_task(text, timestamptz)`);
    await database.migrate();
    expect((await readCatalog(database)).functions).toHaveLength(expected.functions.length - 1);
    await database.db.execute(sql`update drizzle.dc_repeatables set hash = 'edited' where name = 'dc_start_task.sql'`);
    await database.migrate();
    expect(await readCatalog(database)).toEqual(expected);
  });

  it('refuses a 0.x database with only some of its migrations applied, saying what to do', async () => {
    const database = await open(kind, true);
    await database.db.execute(sql`delete from drizzle.__drizzle_migrations where id > 12`);
    await expect(database.migrate()).rejects.toThrow(
      "This database was made by Download Center 0.x and has 12 of 0.x's 18 migrations applied: run `npm run migrate` of the last 0.x release on it first",
    );
  });
});

it('defines each SQL function and trigger once in the tree, in db/functions/ under its own name', () => {
  const db = fileURLToPath(new URL('../../db', import.meta.url));
  const definitions: string[] = [];
  for (const file of readdirSync(db, { recursive: true }).map(String).filter((f) => /\.(sql|ts)$/.test(f))) {
    const text = readFileSync(join(db, file), 'utf8');
    for (const m of text.matchAll(/CREATE\s+(?:OR\s+REPLACE\s+)?(FUNCTION|TRIGGER)\s+"?(\w+)"?/gi)) definitions.push(`${m[1]!.toUpperCase()} ${m[2]} in ${file}`);
  }
  const names = definitions.map((d) => d.split(' in ')[0]);
  expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  const functions = definitions.filter((d) => d.startsWith('FUNCTION '));
  expect(functions.sort()).toEqual(functionFiles.map((f) => `FUNCTION ${f.replace(/\.sql$/, '')} in functions/${f}`));
  expect(definitions.filter((d) => d.startsWith('TRIGGER ') && !d.includes(' in functions/'))).toEqual([]);
});
