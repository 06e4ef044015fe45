// The schema's two parts, applied in this order on every migrate (docs/adr/0041-one-baseline-schema.md):
// 1. versioned migrations (db/migrations, drizzle's journal): tables, indexes, constraints, each
//    applied once;
// 2. repeatable files (db/functions/*.sql): every SQL function and trigger, one file each holding its
//    current body, applied again whenever the file's text differs from what the database last ran.
// A database made by 0.x with all of its migrations applied has the baseline's schema: it is marked
// as holding the baseline; one with only some of them is refused.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { rowsOf } from './rows.js';

type AnyDb = PgDatabase<PgQueryResultHKT, Record<string, unknown>>;

export const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));
export const functionsFolder = fileURLToPath(new URL('./functions', import.meta.url));

/** drizzle's journal times (`when`) of the 0.x migrations 0000–0017, the journal a 0.x database holds. */
const ZERO_X_MIGRATIONS = [
  1795312866911, 1795313260630, 1795416265437, 1795419978043, 1795422387626, 1795524007134, 1795524620009, 1795543085379, 1795543145379,
  1795543205379, 1795543265379, 1795543325379, 1795543385379, 1795543445379, 1795551777735, 1795551923499, 1795555623276, 1795738735741,
];

const BREAKPOINT = '--> statement-breakpoint';

/** Applies the schema; `versioned` runs drizzle's migrator (one per driver) on the same connection. */
export async function migrateSchema(db: AnyDb, versioned: (config: { migrationsFolder: string }) => Promise<void>): Promise<void> {
  await adoptZeroX(db);
  await versioned({ migrationsFolder });
  await applyRepeatables(db);
}

async function adoptZeroX(db: AnyDb): Promise<void> {
  const [journal] = rowsOf<{ present: boolean }>(await db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`));
  if (!journal?.present) return;
  const applied = rowsOf<{ created_at: string }>(await db.execute(sql`select created_at from drizzle.__drizzle_migrations`)).map((r) => Number(r.created_at));
  const [baseline] = readMigrationFiles({ migrationsFolder });
  if (!baseline || applied.includes(baseline.folderMillis)) return;
  const fromZeroX = applied.filter((when) => ZERO_X_MIGRATIONS.includes(when)).length;
  if (fromZeroX === 0) return;
  if (fromZeroX < ZERO_X_MIGRATIONS.length) {
    throw new Error(
      `This database was made by Download Center 0.x and has ${fromZeroX} of 0.x's ${ZERO_X_MIGRATIONS.length} migrations applied: ` +
        'run `npm run migrate` of the last 0.x release on it first, then migrate with this release again.',
    );
  }
  // Its schema is the baseline's (test/e2e/schema-baseline.test.ts): recorded as applied, not run.
  await db.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${baseline.hash}, ${baseline.folderMillis})`);
}

async function applyRepeatables(db: AnyDb): Promise<void> {
  await db.execute(sql`create table if not exists drizzle.dc_repeatables (name text primary key, hash text not null, applied_at timestamptz not null)`);
  const applied = new Map(rowsOf<{ name: string; hash: string }>(await db.execute(sql`select name, hash from drizzle.dc_repeatables`)).map((r) => [r.name, r.hash]));
  const files = readdirSync(functionsFolder).filter((f) => f.endsWith('.sql')).sort();
  await db.transaction(async (tx) => {
    for (const name of files) {
      const text = readFileSync(join(functionsFolder, name), 'utf8');
      const hash = createHash('sha256').update(text).digest('hex');
      // Unchanged files are skipped: a trigger's re-creation locks tasks against every writer.
      if (applied.get(name) === hash) continue;
      for (const statement of text.split(BREAKPOINT)) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into drizzle.dc_repeatables (name, hash, applied_at) values (${name}, ${hash}, now())
        on conflict (name) do update set hash = excluded.hash, applied_at = excluded.applied_at`);
    }
  });
}
