// What a database's schema is, read from its catalogs: tables, columns, types, defaults,
// constraints, indexes, functions with their bodies and triggers of the public schema, in a stable
// order, so two databases' schemas compare with one toEqual. Columns are listed by name, not by
// position: a column a 0.x migration added came last in its table, the baseline's follows
// db/schema.ts, and nothing reads a row by position (docs/adr/0041-one-baseline-schema.md).
import { sql } from 'drizzle-orm';
import { type Database, rowsOf } from '../../db/client.js';

const QUERIES = {
  relations: `select relname, relkind, relpersistence from pg_class where relnamespace = 'public'::regnamespace order by 1`,
  columns: `select table_name, column_name, data_type, udt_name, is_nullable, column_default, character_maximum_length, numeric_precision
    from information_schema.columns where table_schema = 'public' order by 1, 2`,
  types: `select t.typname, t.typtype, (select array_agg(e.enumlabel order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid)::text as labels
    from pg_type t where t.typnamespace = 'public'::regnamespace order by 1`,
  constraints: `select conrelid::regclass::text as rel, conname, contype, pg_get_constraintdef(oid) as def
    from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`,
  indexes: `select tablename, indexname, indexdef from pg_indexes where schemaname = 'public' order by 1, 2`,
  functions: `select proname, pg_get_function_identity_arguments(oid) as args, pg_get_functiondef(oid) as def
    from pg_proc where pronamespace = 'public'::regnamespace order by 1, 2`,
  triggers: `select tgrelid::regclass::text as rel, tgname, pg_get_triggerdef(oid) as def from pg_trigger where not tgisinternal order by 1, 2`,
};

export type Catalog = Record<keyof typeof QUERIES, unknown[]>;

export async function readCatalog(database: Database): Promise<Catalog> {
  const entries = await Promise.all(
    Object.entries(QUERIES).map(async ([part, query]) => [part, rowsOf(await database.db.execute(sql.raw(query)))] as const),
  );
  return Object.fromEntries(entries) as Catalog;
}
