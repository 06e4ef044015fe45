// `node --import tsx bench/counts.ts [postgres|pglite] [tasks]`: GET /v1/tasks/counts,
// GET /v1/admin/tasks/counts and GET /metrics over a project of `tasks` tasks (100,000 by default,
// inserted by one statement), 30 calls each through app.request() (no network), p50 / p95 in ms.
// Postgres: a scratch database on BENCH_PG_URL; PGlite: a file database in a temp dir, as embedded.
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { ADMIN, inProcessApp, timeCalls } from './in-process.js';

const kind = process.argv[2] === 'pglite' ? 'pglite' : 'postgres';
const total = Number(process.argv[3] ?? 100_000);

async function main() {
  const { database, call, close } = await inProcessApp(kind, 'counts');
  try {
    const project = await call<{ project_id: string; api_key: string }>('/v1/projects', ADMIN, { method: 'POST', body: JSON.stringify({ name: 'bench', source_hosts: ['127.0.0.1'] }) });
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
      const { p50, p95 } = await timeCalls(() => call(path, token), { warm: 5 });
      console.log(`| ${name} | ${p50.toFixed(1)} / ${p95.toFixed(1)} ms |`);
    }
  } finally {
    await close();
  }
}

await main();
