// `npm run bench -- history [1M|5M] [pglite]`: every list the API pages, the counts and /metrics
// (issue 24, targets 1, 2 and 4) over a long history: one project of N tasks (1,000,000 by
// default) and N/5 more spread over 49 other projects, inserted by one statement and vacuumed; 30
// calls of each read through app.request() (no network), p50 / p95 in ms. Postgres: a scratch
// database on BENCH_PG_URL, dropped at the end; `pglite`: a file database in a temp dir, as the
// embedded start has it (100,000 by default). BENCH_KEEP_DB=name keeps the Postgres database
// (loaded on the first run, migrated and measured as it is on the next), so one load serves a
// before and an after (and bench/history-plans.ts). `history expiry`: bench/expiry.ts.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { type Database, rowsOf } from '../db/client.js';
import { encodeCursor } from '../domain/cursor.js';
import { ADMIN, inProcessApp, timeCalls } from './in-process.js';

type Answer = { project_id: string; api_key: string; items: Answer[] };

/**
 * The history: task g (1 = newest) is 0.5 s older than g-1; every sixth belongs to one of the other
 * projects. Mostly succeeded, some failed, cancelled and expired, a few newest still queued or
 * running (the only ones with a stage); one in ten a schedule's run, 50 operators per project.
 * Expired tasks keep the expires_at that expired them, as the cleaner leaves them.
 */
export async function loadHistory(database: Database, main: string, others: string[], total: number): Promise<void> {
  const list = others.map((id) => `'${id.replace(/'/g, "''")}'`).join(',');
  // A history is not news: with the trigger on, the API process's LISTEN connection is handed one
  // notice per loaded row after the commit (6 M at 5M), and the first reads timed waited behind
  // them (p50 86 ms against 3 ms; docs/performance.md). The counts' triggers stay on.
  await database.db.execute(sql`alter table tasks disable trigger tasks_notify`);
  try {
    await insertHistory(database, main, list, others.length, total);
  } finally {
    await database.db.execute(sql`alter table tasks enable trigger tasks_notify`);
  }
  // As autovacuum leaves a table in service: statistics, and a visibility map so index-only scans
  // skip the heap; the checkpoint writes the load out before anything is timed.
  await database.db.execute(sql`vacuum (analyze) tasks`);
  await database.db.execute(sql`checkpoint`);
}

async function insertHistory(database: Database, main: string, list: string, others: number, total: number): Promise<void> {
  await database.db.execute(sql`insert into tasks (id, project_id, operator_id, type, file_name, source_url, page_size, priority, options,
      status, stage, schedule_id, request_hash, created_at, expires_at)
    select 'tk_h' || g, case when g % 6 = 0 then (array[${sql.raw(list)}])[1 + (g / 6) % ${others}] else ${main} end,
      'op-' || (g % 50), 'csv', 'f.csv', 'http://127.0.0.1/x', 500, 3, '{}'::jsonb, s.status,
      case when s.status = 'running' then 'fetching' end, case when g % 10 = 3 then 'sc_h' || (g % 7) end, 'h' || g, c.at,
      case when s.status = 'succeeded' then c.at + interval '168 hours' when s.status = 'expired' then c.at + interval '1 hour' end
    from generate_series(1, ${total}) g,
      lateral (select date_trunc('milliseconds', now()) - g * interval '500 milliseconds' as at) c,
      lateral (select case when g <= 20 then 'queued' when g <= 40 then 'running' when g % 50 = 7 then 'failed'
        when g % 97 = 3 then 'cancelled' when g % 13 = 5 then 'expired' else 'succeeded' end as status) s`);
}

export async function benchHistory(n: number, kind: 'postgres' | 'pglite'): Promise<string> {
  const { database, call, close } = await inProcessApp(kind, 'history', kind === 'postgres' ? process.env.BENCH_KEEP_DB : undefined);
  const out: string[] = [];
  try {
    // A kept database has its projects already: fresh keys of the two measured are rotated in.
    const projects: Array<{ project_id: string; api_key: string }> = [];
    const listed = await call<Answer>('/v1/projects?limit=100', ADMIN);
    if (listed.items.length > 0) {
      for (const { project_id } of listed.items.slice(0, 2)) {
        projects.push({ project_id, api_key: (await call<Answer>(`/v1/projects/${project_id}/rotate-key`, ADMIN, { method: 'POST', body: '{}' })).api_key });
      }
    } else {
      for (let i = 0; i < 50; i++) {
        projects.push(await call<Answer>('/v1/projects', ADMIN, { method: 'POST', body: JSON.stringify({ name: `bench-${i}`, source_hosts: ['127.0.0.1'] }) }));
      }
      const t0 = performance.now();
      await loadHistory(database, projects[0]!.project_id, projects.slice(1).map((p) => p.project_id), Math.round(n * 1.2));
      out.push(`loaded ${Math.round(n * 1.2)} tasks in ${Math.round((performance.now() - t0) / 1000)} s`);
    }
    const [p, other] = [projects[0]!, projects[1]!];
    // A cursor in the middle of the main project's history.
    const midId = `tk_h${Math.round(n * 0.6)}`;
    const [mid] = rowsOf<{ created_at: string | Date }>(await database.db.execute(sql`select created_at from tasks where id = ${midId}`));
    const cursor = encodeCursor({ id: midId, createdAt: new Date(mid!.created_at) });
    const [day0, day1] = [new Date(Date.now() - n * 250 - 86_400_000).toISOString(), new Date(Date.now() - n * 250).toISOString()];
    const range = `created_after=${encodeURIComponent(day0)}&created_before=${encodeURIComponent(day1)}`;
    const reads: Array<[string, string, string]> = [
      ['GET /v1/tasks?limit=50 (newest first)', '/v1/tasks?limit=50', p.api_key],
      ['the page at the middle (cursor)', `/v1/tasks?limit=50&cursor=${cursor}`, p.api_key],
      ['?status=failed', '/v1/tasks?limit=50&status=failed', p.api_key],
      ['?status=failed, middle cursor', `/v1/tasks?limit=50&status=failed&cursor=${cursor}`, p.api_key],
      ['?status=paused (none)', '/v1/tasks?limit=50&status=paused', p.api_key],
      ['?operator_id=op-7', '/v1/tasks?limit=50&operator_id=op-7', p.api_key],
      ['?operator_id=op-7, middle cursor', `/v1/tasks?limit=50&operator_id=op-7&cursor=${cursor}`, p.api_key],
      ['?schedule_id=sc_h3', '/v1/tasks?limit=50&schedule_id=sc_h3', p.api_key],
      ['a day, a day back (date range)', `/v1/tasks?limit=50&${range}`, p.api_key],
      ['another project, newest first', '/v1/tasks?limit=50', other.api_key],
      ['GET /v1/admin/tasks?limit=50', '/v1/admin/tasks?limit=50', ADMIN],
      ['admin, middle cursor', `/v1/admin/tasks?limit=50&cursor=${cursor}`, ADMIN],
      ['admin ?project_id=', `/v1/admin/tasks?limit=50&project_id=${p.project_id}`, ADMIN],
      ['admin ?status=failed', '/v1/admin/tasks?limit=50&status=failed', ADMIN],
      ['admin ?status=paused (none)', '/v1/admin/tasks?limit=50&status=paused', ADMIN],
      ['admin ?stage=fetching', '/v1/admin/tasks?limit=50&stage=fetching', ADMIN],
      ['GET /v1/schedules', '/v1/schedules?limit=50', p.api_key],
      ['GET /v1/projects', '/v1/projects?limit=50', ADMIN],
      // Target 2: the counts the database keeps, and the gauges read from them.
      ['GET /v1/tasks/counts', '/v1/tasks/counts', p.api_key],
      ['GET /v1/admin/tasks/counts', '/v1/admin/tasks/counts', ADMIN],
      ['GET /metrics', '/metrics', ADMIN],
    ];
    out.push(`${kind}, ${n} tasks in one project and ${Math.round(n / 5)} in 49 others`, '', '| list | p50 / p95 ms | longest event-loop stall ms |', '| --- | --- | --- |');
    // The stall says whether a slow read waited on the database or on this process's own work.
    const stall = monitorEventLoopDelay({ resolution: 5 });
    for (const [name, path, token] of reads) {
      stall.reset();
      stall.enable();
      const { p50, p95 } = await timeCalls(() => call(path, token));
      stall.disable();
      // No sample: the loop never got back to its timers (PGlite answers in microtasks, in process).
      const longest = stall.count === 0 ? 'none sampled' : (stall.max / 1e6).toFixed(0);
      out.push(`| ${name} | ${p50.toFixed(1)} / ${p95.toFixed(1)} | ${longest} |`);
    }
  } finally {
    await close();
  }
  return out.join('\n');
}
