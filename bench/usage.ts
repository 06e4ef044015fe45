// `node --import tsx bench/usage.ts [postgres|pglite] [tasks]`: what keeping usage costs writers
// and what reading it costs (docs/performance.md, "Usage"). With the usage triggers on, then off
// (ALTER TABLE … DISABLE TRIGGER, the same database): one INSERT of `tasks` finished tasks
// (100,000 by default), 1,000 single-row ends (finishTask) and 1,000 progress updates, timed;
// then 200 submissions with three quotas set against none; then GET /v1/usage (366 days),
// GET /v1/admin/usage and GET /metrics over that history, 30 calls each, p50 / p95 in ms.
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { getProject } from '../domain/projects/projects.js';
import { updateProject } from '../domain/projects/admin.js';
import { acceptSubmission } from '../domain/tasks/admission/accept.js';
import { finishTask, setLaneProgress } from '../domain/tasks/status.js';
import { newTask } from '../domain/tasks/submit.js';
import { ADMIN, inProcessApp, pct, timeCalls } from './in-process.js';

const kind = process.argv[2] === 'pglite' ? 'pglite' : 'postgres';
const total = Number(process.argv[3] ?? 100_000);
const SINGLE = 1000;
const TRIGGERS = ['tasks_usage_insert', 'tasks_usage_update', 'tasks_usage_delete'];
const file = { name: 'f.csv', key: 'k', rows: 100, bytes: 4096, sha256: '' };

async function main() {
  const { database, call, close } = await inProcessApp(kind, 'usage');
  const db = database.db;
  const timed = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  try {
    const created = await call<{ project_id: string; api_key: string }>('/v1/projects', ADMIN, { method: 'POST', body: JSON.stringify({ name: 'bench', source_hosts: ['127.0.0.1'], submit_per_minute: 10_000, max_running_tasks: 100 }) });
    const projectId = created.project_id;
    const round = async (on: boolean, tag: string) => {
      for (const t of TRIGGERS) await db.execute(sql.raw(`alter table tasks ${on ? 'enable' : 'disable'} trigger ${t}`));
      const insert = await timed(() => db.execute(sql`insert into tasks (id, project_id, operator_id, type, file_name, source_url, page_size, priority, options, status, request_hash, created_at, finished_at, files)
        select ${tag} || g, ${projectId}, 'op', 'csv', 'f.csv', 'http://127.0.0.1/x', 500, 3, '{}'::jsonb, (array['succeeded','succeeded','failed','expired'])[1 + g % 4],
          ${tag} || g, now() - (g % 400) * interval '1 day', now() - (g % 400) * interval '1 day', ${JSON.stringify([file])}::jsonb
        from generate_series(1, ${total}) g`));
      await db.execute(sql`insert into tasks (id, project_id, operator_id, type, file_name, source_url, page_size, priority, options, status, request_hash)
        select ${tag} || 'run-' || g, ${projectId}, 'op', 'csv', 'f.csv', 'http://127.0.0.1/x', 500, 3, '{}'::jsonb, 'running', ${tag} || 'run-' || g from generate_series(1, ${SINGLE}) g`);
      const progress = await timed(async () => {
        for (let i = 1; i <= SINGLE; i++) await setLaneProgress(db, `${tag}run-${i}`, 0, { pages: i, rows: i * 100 });
      });
      const ends = await timed(async () => {
        for (let i = 1; i <= SINGLE; i++) await finishTask(db, `${tag}run-${i}`, { status: 'succeeded', files: [file], expiresAt: new Date(Date.now() + 3_600_000) });
      });
      console.log(`| usage triggers ${on ? 'on' : 'off'} | ${Math.round(insert)} ms | ${(progress / SINGLE).toFixed(2)} ms | ${(ends / SINGLE).toFixed(2)} ms |`);
    };
    console.log(`${kind}: ${total} finished tasks in one INSERT; ${SINGLE} progress updates and ${SINGLE} ends one by one (mean per statement)`);
    console.log('| | INSERT | progress update | end |');
    console.log('| --- | --- | --- | --- |');
    await round(true, 'a-');
    await round(false, 'b-');
    await round(true, 'c-');
    await db.execute(sql`select dc_usage_recount()`);
    await db.execute(sql`analyze`);

    const project = (await getProject(db, projectId))!;
    const submit = async (n: number, tag: string) => {
      const ms: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await acceptSubmission(db, newTask(project, { source_url: `http://127.0.0.1/${tag}${i}`, operator_id: 'op', type: 'csv', page_size: 500, priority: 3 }, `${tag}${i}`, undefined));
        ms.push(performance.now() - t0);
      }
      await db.execute(sql`update tasks set status = 'cancelled' where status = 'queued' or status = 'running'`);
      return `${pct(ms, 50).toFixed(2)} / ${pct(ms, 95).toFixed(2)} ms`;
    };
    console.log(`| submissions, no quota | ${await submit(200, 'nq')} |`);
    await updateProject(db, projectId, { quota_monthly_rows: 1e15, quota_monthly_bytes: 1e15, quota_stored_bytes: 1e15 });
    console.log(`| submissions, three quotas | ${await submit(200, 'q')} |`);

    const today = new Date().toISOString().slice(0, 10);
    const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
    const reads: Array<[string, string, string]> = [
      ['GET /v1/usage (366 days)', `/v1/usage?from=${yearAgo}&to=${today}`, created.api_key],
      ['GET /v1/admin/usage (366 days)', `/v1/admin/usage?from=${yearAgo}&to=${today}`, ADMIN],
      ['GET /metrics', '/metrics', ADMIN],
    ];
    for (const [name, path, token] of reads) {
      const { p50, p95 } = await timeCalls(() => call(path, token), { warm: 5 });
      console.log(`| ${name} | ${p50.toFixed(1)} / ${p95.toFixed(1)} ms |`);
    }
  } finally {
    await close();
  }
}

await main();
