// The API in this process, without a network or a Temporal server, over a scratch database: what
// the read benchmarks (counts, history) time with app.request(). Postgres: a database created on
// BENCH_PG_URL and dropped by close() (unless `keep` names one to reuse); PGlite: a temp dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { createApp } from '../api/app.js';
import { type Database, openDatabase } from '../db/client.js';
import { loadConfig } from '../platform/config.js';
import { configureLogging } from '../platform/logger.js';
import { LocalStorage } from '../platform/storage/local.js';
import { FakeTemporal } from '../test/support/fake-temporal.js';

export const ADMIN = 'bench-admin-token-0123456789';
const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

export interface InProcessApp {
  database: Database;
  /** A call as `token`: its answer (JSON parsed, text otherwise), or a throw naming the path and status. */
  call<T = unknown>(path: string, token: string, init?: RequestInit): Promise<T>;
  close(): Promise<void>;
}

export async function inProcessApp(kind: 'postgres' | 'pglite', name: string, keep?: string): Promise<InProcessApp> {
  configureLogging('error', { pretty: false });
  const dataDir = mkdtempSync(join(tmpdir(), `dc-bench-${name}-`));
  const dbName = keep ?? `dc_bench_${name}_${process.pid}`;
  const admin = postgres(`${PG}/postgres`, { max: 1, onnotice: () => {} });
  if (kind === 'postgres') await admin.unsafe(`create database ${dbName}`).catch((e: unknown) => { if (!keep) throw e; });
  const database = await openDatabase(kind === 'postgres' ? { url: `${PG}/${dbName}`, dataDir } : { dataDir });
  await database.migrate();
  const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LINK_SECRET: 'bench-link-secret-0123456789', PUBLIC_BASE_URL: 'http://dc.test' });
  const secrets = { adminToken: ADMIN, linkSecret: config.LINK_SECRET ?? '', adminTokenGenerated: false };
  const { app, realtime } = createApp({ config, database, storage: new LocalStorage(join(dataDir, 'store')), secrets, temporal: new FakeTemporal().client } as never);
  await realtime.hub.ready;
  return {
    database,
    async call<T>(path: string, token: string, init: RequestInit = {}) {
      const res = await app.request(path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text()) as T;
    },
    async close() {
      await realtime.hub.close();
      await database.close();
      if (kind === 'postgres' && !keep) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
      await admin.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** p50 and p95 in ms of `n` calls of `once`, after `warm` calls not counted. */
export async function timeCalls(once: () => Promise<unknown>, { warm = 3, n = 30 } = {}): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < warm; i++) await once();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await once();
    ms.push(performance.now() - t0);
  }
  return { p50: pct(ms, 50), p95: pct(ms, 95) };
}
