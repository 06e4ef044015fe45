import { join } from 'node:path';
import { DrizzleQueryError } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { migrateSchema } from './migrate.js';
import { preparing } from './prepared.js';
import * as schema from './schema.js';
import type { WireServer } from './wire.js';
import type { FromPgliteThread, PgliteThreadData, ToPgliteThread } from './pglite-thread.js';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Applies the schema (db/migrate.ts: db/migrations, then db/functions); the same call in tests and production. */
  migrate(): Promise<void>;
  /**
   * `select 1` on a connection of its own (Postgres), not the pool's: whether the database can be
   * reached, even while every pooled connection is busy (app/worker-supervisor.ts, /healthz).
   */
  ping(): Promise<void>;
  /**
   * LISTEN on a channel (domain/tasks/events.ts). onConnect runs after every (re)connect of the listening
   * connection, so a caller can catch up on what it missed while disconnected.
   */
  listen(channel: string, onNotice: (payload: string) => void, onConnect?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /**
   * PGlite only: serves the instance over the Postgres protocol on the loopback (db/wire.ts), for the
   * embedded start's worker process.
   */
  serveWire?(): Promise<WireServer>;
}

export { rowsOf } from './rows.js';

// Any fixed number: the advisory lock that makes concurrent start-ups (api + worker) migrate one at a time.
const MIGRATION_LOCK = 7_262_001;

/**
 * Seconds before a connection that failed retries. The driver's default grows 3^n with the pool's
 * failed attempts up to 20 s, so a Postgres that was down for one second is used again only up to
 * 20 s later; capped at one second, everything resumes within about a second of its return
 * (docs/adr/0036-database-restarts.md).
 */
export const reconnectDelaySeconds = (attempts: number): number => Math.min(0.05 * 2 ** attempts, 1);

async function migrateLocked(url: string): Promise<void> {
  // One connection, so the session lock and the migration share it.
  const one = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await one`select pg_advisory_lock(${MIGRATION_LOCK})`;
    const db = drizzlePostgres(one, { schema });
    await migrateSchema(db, (config) => migratePostgres(db, config));
  } finally {
    await one.end({ timeout: 5 });
  }
}

/**
 * db.transaction, but the driver's own errors (begin, commit, rollback, the connection lost meanwhile)
 * come wrapped in a DrizzleQueryError as every query's do, which drizzle does not do for a
 * transaction: isDatabaseUnavailable (db/unavailable.ts) then tells a database that is down from
 * another service refusing a connection. What the callback throws passes unchanged.
 */
function wrapTransactionErrors(db: Db): Db {
  const transaction = db.transaction.bind(db);
  db.transaction = async (fn, config) => {
    let thrown: { err: unknown } | undefined;
    try {
      return await transaction(async (tx) => {
        try {
          return await fn(tx);
        } catch (err) {
          thrown = { err };
          throw err;
        }
      }, config);
    } catch (err) {
      if (thrown && err === thrown.err) throw err;
      throw new DrizzleQueryError('transaction', [], err as Error);
    }
  };
  return db;
}

/**
 * Postgres when a URL is given, otherwise PGlite in DATA_DIR/pglite (the embedded default).
 * `memory`: a PGlite that keeps nothing on disk, for the route tests (test/support/route-app.ts),
 * started from a dump of another (PGlite's dumpDataDir) when one is given, which skips initdb.
 * `thread`: PGlite on a thread of its own, reached over its wire like a Postgres (db/pglite-thread.ts):
 * the embedded start's API process, so that PGlite's work is not the API's event loop's.
 */
export async function openDatabase(opts: { url?: string; dataDir: string; memory?: { loadDataDir?: Blob }; poolMax?: number; thread?: boolean }): Promise<Database> {
  if (opts.url) return postgresDatabase(opts.url, opts.poolMax);
  if (opts.thread && !opts.memory) return threadedPglite(join(opts.dataDir, 'pglite'), opts.poolMax);
  // Loaded only here: a process on Postgres (or reaching PGlite's thread over its wire) never holds
  // PGlite's JavaScript (db/pglite-database.ts).
  const { openPgliteDatabase } = await import('./pglite-database.js');
  const pglite = await openPgliteDatabase(opts);
  return { ...pglite, db: pglite.db as unknown as Db };
}

function postgresDatabase(url: string, poolMax = 10): Database {
  // A small pool: the API and the activities each hold a few short queries at once.
  const client = postgres(url, { max: poolMax, onnotice: () => {}, backoff: reconnectDelaySeconds });
  const db = wrapTransactionErrors(drizzlePostgres(preparing(client), { schema }) as unknown as Db);
  // Up to 16 activities share the pool: a probe waiting its turn there would take a busy pool
  // for an outage and pause the worker (docs/adr/0036-database-restarts.md).
  const probe = postgres(url, { max: 1, onnotice: () => {}, backoff: reconnectDelaySeconds });
  return {
    db,
    kind: 'postgres',
    migrate: () => migrateLocked(url),
    ping: async () => {
      await probe`select 1`;
    },
    listen: async (channel, onNotice, onConnect) => {
      // postgres.js keeps one dedicated connection for LISTEN and re-listens after a reconnect.
      const req = await client.listen(channel, onNotice, onConnect);
      return () => req.unlisten();
    },
    close: async () => {
      await Promise.all([client.end({ timeout: 5 }), probe.end({ timeout: 5 })]);
    },
  };
}

/**
 * PGlite in `dir` on a thread of its own, served over the loopback (db/pglite-thread.ts); this process
 * reaches it as a Postgres, and serveWire() gives the same address to another process. A thread that
 * ends before close() leaves the process without its database: it ends the process.
 */
async function threadedPglite(dir: string, poolMax?: number): Promise<Database> {
  const thread = startThread('pglite-thread', { dir } satisfies PgliteThreadData);
  let closing = false;
  let failure: Error | undefined;
  thread.on('error', (err) => (failure = err));
  const closed = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    thread.on('message', (m: FromPgliteThread) => (m.kind === 'ready' ? resolve(m.url) : m.kind === 'failed' ? reject(new Error(m.message)) : undefined));
    thread.once('exit', (code) => reject(new Error(`the database thread ended while opening (exit code ${code}${failure ? `: ${failure.message}` : ''})`)));
  });
  thread.once('exit', (code) => {
    if (closing) return;
    // Nothing here can go on without the database; a supervisor (or the operator) starts it again.
    console.error(`[download-center] the embedded database's thread ended (exit code ${code}${failure ? `: ${failure.message}` : ''}): stopping`);
    process.exit(1);
  });
  const database = postgresDatabase(url, poolMax);
  return {
    ...database,
    kind: 'pglite',
    serveWire: async () => ({ url, close: async () => {} }),
    close: async () => {
      await database.close();
      closing = true;
      thread.postMessage({ kind: 'close' } satisfies ToPgliteThread);
      await closed;
    },
  };
}

/**
 * A worker thread running db/<name>.js; from the TypeScript sources (tsx, vitest) its .ts, after
 * registering tsx's hooks in the thread: Node 20 applies no `--import` (nor the parent's hooks) there.
 */
function startThread(name: string, workerData: unknown): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const file = new URL(`./${name}${fromSources ? '.ts' : '.js'}`, import.meta.url);
  if (!fromSources) return new Worker(file, { workerData });
  // tsx's ESM API, by its file: an eval'd thread resolves packages from nowhere.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(file.href)}); });`, { eval: true, workerData });
}
