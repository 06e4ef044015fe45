// `node --import tsx bench/counts.ts [postgres|pglite] [tasks]`: GET /v1/tasks/counts,
// GET /v1/admin/tasks/counts and GET /metrics over a project of `tasks` tasks (100,000 by default,
// inserted by one statement), 30 calls each through app.request() (no network), p50 / p95 in ms.
// Postgres: a scratch database on BENCH_PG_URL; PGlite: a file database in a temp dir, as embedded.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { createApp } from '../api/app.js';
import { openDatabase } from '../db/client.js';
import { loadConfig } from '../platform/config.js';
import { configureLogging } from '../platform/logger.js';
import { LocalStorage } from '../platform/storage/local.js';
import { FakeTemporal } from '../test/support/fake-temporal.js';

const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const ADMIN = 'bench-admin-token-0123456789';
const kind = process.argv[2] === 'pglite' ? 'pglite' : 'postgres';
const total = Number(process.argv[3] ?? 100_000);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main() {
  configureLogging('error', { pretty: false });
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-bench-counts-'));
  const dbName = `dc_bench_counts_${process.pid}`;
  const admin = postgres(`${PG}/postgres`, { max: 1, onnotice: () => {} });
  if (kind === 'postgres') await admin.unsafe(`create database ${dbName}`);
  const database = await openDatabase(kind === 'postgres' ? { url: `${PG}/${dbName}`, dataDir } : { dataDir });
  try {
    await database.migrate();
    const config = loadConfig({ DATA_DIR: dataDir, ADMIN_TOKEN: ADMIN, LINK_SECRET: 'bench-link-secret-0123456789', PUBLIC_BASE_URL: 'http://dc.test' });
    const secrets = { adminToken: ADMIN, linkSecret: config.LINK_SECRET ?? '', adminTokenGenerated: false };
    const { app, realtime } = createApp({ config, database, storage: new LocalStorage(join(dataDir, 'store')), secrets, temporal: new FakeTemporal().client } as never);
    await realtime.hub.ready;
    const call = async (path: string, token: string) => {
      const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.text();
    };
    const res = await app.request('/v1/projects', { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench', source_hosts: ['127.0.0.1'] }) });
    const project = (await res.json()) as { project_id: string; api_key: string };
    const t0 = performance.now();
    // Finished tasks of every kind, as a busy history looks: mostly succeeded, some failed and expired.
    await database.db.execute(sql`insert into tasks (id, project_id, operator_id, type, file_name, source_url, page_size, priority, options, status, request_hash, created_at)
      select 'bench-' || g, ${project.project_id}, 'op-' || (g % 50), 'csv', 'f.csv', 'http://127.0.0.1/x', 500, 3, '{}'::jsonb,
        (array['succeeded','succeeded','succeeded','failed','expired','cancelled'])[1 + g % 6], 'h' || g, now() - g * interval '1 second'
      from generate_series(1, ${total}) g`);
    await database.db.execute(sql`analyze tasks`);
    const insertMs = performance.now() - t0;
    const reads: Array<[string, string, string]> = [
      ['GET /v1/tasks/counts', '/v1/tasks/counts', project.api_key],
      ['GET /v1/admin/tasks/counts', '/v1/admin/tasks/counts', ADMIN],
      ['GET /metrics', '/metrics', ADMIN],
    ];
    console.log(`${kind}, ${total} tasks (inserted in ${Math.round(insertMs)} ms)`);
    for (const [name, path, token] of reads) {
      for (let i = 0; i < 5; i++) await call(path, token);
      const ms: number[] = [];
      for (let i = 0; i < 30; i++) {
        const s = performance.now();
        await call(path, token);
        ms.push(performance.now() - s);
      }
      console.log(`| ${name} | ${pct(ms, 50).toFixed(1)} / ${pct(ms, 95).toFixed(1)} ms |`);
    }
    await realtime.hub.close();
  } finally {
    await database.close();
    if (kind === 'postgres') await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
