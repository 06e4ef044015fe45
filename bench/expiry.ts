// `npm run bench -- history expiry [1M]`: issue 24, target 3. A scratch Postgres database with N
// (1,000,000 by default) succeeded tasks past their retention and N/5 within it, over 50 projects;
// a steady stream of submissions (POST /v1/tasks through app.request(), one every 20 ms) is timed
// first alone, then while the cleaner (bench/expiry-cleaner.ts, its own process as a worker is)
// expires the backlog in batches. Reported: the submissions' p50 / p95 / p99 / max each way, the
// cleaner's tasks/s and batch durations, and the longest lock wait seen in pg_stat_activity
// (sampled every 10 ms). The store holds no files here: this measures the database side.
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { rowsOf } from '../db/client.js';
import { ADMIN, inProcessApp, pct } from './in-process.js';
import { spawnNode } from './measure.js';

const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const EVERY_MS = 20;
type Project = { project_id: string; api_key: string };

const summary = (ms: number[]) => `${ms.length} | ${pct(ms, 50).toFixed(1)} / ${pct(ms, 95).toFixed(1)} / ${pct(ms, 99).toFixed(1)} / ${Math.max(...ms).toFixed(1)}`;

export async function benchExpiry(n: number): Promise<string> {
  const { database, call, close } = await inProcessApp('postgres', 'expiry');
  const url = `${PG}/dc_bench_expiry_${process.pid}`;
  const out: string[] = [];
  const watch = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const projects: Project[] = [];
    for (let i = 0; i < 50; i++) {
      const body = { name: `expiry-${i}`, source_hosts: ['127.0.0.1'], submit_per_minute: 10_000, max_running_tasks: 100 };
      projects.push(await call<Project>('/v1/projects', ADMIN, { method: 'POST', body: JSON.stringify(body) }));
    }
    const [main, others] = [projects[0]!.project_id, projects.slice(1).map((p) => `'${p.project_id}'`).join(',')];
    const t0 = performance.now();
    // Task g: due (expired g × 0.1 s ago) for g ≤ n, within retention after; every sixth elsewhere.
    await database.db.execute(sql`insert into tasks (id, project_id, operator_id, type, file_name, source_url, page_size, priority, options,
        status, request_hash, created_at, finished_at, expires_at)
      select 'tk_e' || g, case when g % 6 = 0 then (array[${sql.raw(others)}])[1 + (g / 6) % 49] else ${main} end,
        'op-' || (g % 50), 'csv', 'f.csv', 'http://127.0.0.1/x', 500, 3, '{}'::jsonb, 'succeeded', 'e' || g,
        now() - interval '8 days', now() - interval '8 days',
        case when g <= ${n} then now() - g * interval '100 milliseconds' else now() + interval '1 day' end
      from generate_series(1, ${Math.round(n * 1.2)}) g`);
    await database.db.execute(sql`vacuum (analyze) tasks`);
    await database.db.execute(sql`checkpoint`);
    out.push(`loaded ${Math.round(n * 1.2)} tasks (${n} due) in ${Math.round((performance.now() - t0) / 1000)} s`);

    // One submission every EVERY_MS (a slow one delays the next, as a client waiting would), round robin over the projects.
    let k = 0;
    const stream = async (until: () => boolean) => {
      const ms: number[] = [];
      while (!until()) {
        const p = projects[k++ % projects.length]!;
        const s0 = performance.now();
        await call('/v1/tasks', p.api_key, { method: 'POST', body: JSON.stringify({ source_url: `http://127.0.0.1/x?k=${k}`, operator_id: 'op' }) });
        const took = performance.now() - s0;
        ms.push(took);
        await new Promise((r) => setTimeout(r, Math.max(0, EVERY_MS - took)));
      }
      return ms;
    };
    // The longest lock wait seen (an upper bound: since the statement began) of a submission
    // (dc_accept_task) and of anything else (the cleaner), with what it waited on.
    type Wait = { ms: number; on: string };
    const none = (): { submit: Wait; other: Wait } => ({ submit: { ms: 0, on: 'none' }, other: { ms: 0, on: 'none' } });
    let waits = none();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await watch<Array<{ s: number; on: string; submit: boolean }>>`select extract(epoch from clock_timestamp() - query_start)::float8 as s,
            wait_event || ': ' || left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 40) as on, query like '%dc_accept_task%' as submit
          from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`;
        for (const r of rows) {
          const w = r.submit ? waits.submit : waits.other;
          if (r.s * 1000 > w.ms) Object.assign(w, { ms: r.s * 1000, on: r.on });
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const waitLine = (w: { submit: Wait; other: Wait }) => `submissions ${w.submit.ms.toFixed(0)} ms (${w.submit.on}), others ${w.other.ms.toFixed(0)} ms (${w.other.on})`;

    const quietEnd = performance.now() + 30_000;
    const quiet = await stream(() => performance.now() > quietEnd);
    const quietWaits = waits;
    waits = none();
    const cleaner = spawnNode(['bench/expiry-cleaner.ts', url], {});
    const during = await stream(() => cleaner.child.exitCode !== null);
    await cleaner.exited;
    sampling = false;
    await sampler;
    const line = cleaner.out().split('\n').find((l) => l.startsWith('{'));
    if (!line) throw new Error(`the cleaner failed:\n${cleaner.out()}`);
    const result = JSON.parse(line) as { expired: number; seconds: number; batch: number; batches: number[] };
    const [left] = rowsOf<{ n: number }>(await database.db.execute(sql`select count(*)::int as n from tasks where status = 'succeeded' and expires_at < now()`));
    const drift = rowsOf<{ n: number }>(await database.db.execute(sql`select 1 as n from (select project_id, status, count(*)::int as n from tasks group by 1, 2) c
      full join (select * from task_counts where n <> 0) k using (project_id, status) where c.n is distinct from k.n`));

    out.push(
      '',
      '| submissions (POST /v1/tasks) | calls | p50 / p95 / p99 / max ms |',
      '| --- | --- | --- |',
      `| without cleanup (30 s) | ${summary(quiet)} |`,
      `| during cleanup | ${summary(during)} |`,
      '',
      `cleanup: ${result.expired} tasks expired in ${result.seconds.toFixed(1)} s (${Math.round(result.expired / result.seconds)} tasks/s), batches of ${result.batch}: ` +
        `p50 ${pct(result.batches, 50).toFixed(1)} / p99 ${pct(result.batches, 99).toFixed(1)} / max ${Math.max(...result.batches).toFixed(1)} ms`,
      `longest lock wait seen: during cleanup, ${waitLine(waits)}; without, ${waitLine(quietWaits)}`,
      `load average (1 min) at the end: ${loadavg()[0]!.toFixed(1)} (this machine's cores are shared with other work)`,
      `left due: ${left?.n}; kept counts differing from a full count: ${drift.length}`,
    );
  } finally {
    await watch.end();
    await close();
  }
  return out.join('\n');
}
