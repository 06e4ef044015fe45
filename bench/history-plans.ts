// `node --import tsx bench/history-plans.ts <database>`: the database's own time for each list
// page the API builds (pageQuery, as GET /v1/tasks and GET /v1/admin/tasks run it) and for the
// kept counts, over a history loaded by `BENCH_KEEP_DB=<database> npm run bench -- history`:
// EXPLAIN ANALYZE's execution time, 30 runs after 3, p50 / p95 ms, and the index each page used.
// Beside the bench's times through the API, it tells the plan's cost from the machine's load.
import postgres from 'postgres';
import { type Database, openDatabase } from '../db/client.js';
import { encodeCursor } from '../domain/cursor.js';
import { type AdminTaskFilter, pageQuery } from '../domain/tasks/queries.js';
import { pct } from './in-process.js';

const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
type Plan = { 'Node Type': string; 'Index Name'?: string; Plans?: Plan[] };
const nodes = (p: Plan): Plan[] => [p, ...(p.Plans ?? []).flatMap(nodes)];

async function main() {
  const url = `${PG}/${process.argv[2]}`;
  const database: Database = await openDatabase({ url, dataDir: '' });
  const raw = postgres(url, { max: 1, onnotice: () => {} });
  const [[main], [other]] = [await raw`select project_id as id from tasks where id = 'tk_h1'`, await raw`select project_id as id from tasks where id = 'tk_h6'`];
  const [{ n }] = (await raw`select count(*)::int as n from tasks where project_id = ${main!.id}`) as unknown as [{ n: number }];
  const midId = `tk_h${Math.round(n * 0.6)}`;
  const [mid] = await raw`select created_at from tasks where id = ${midId}`;
  const cursor = encodeCursor({ id: midId, createdAt: new Date(mid!.created_at as Date) });
  const p = main!.id as string;
  const pages: Array<[string, AdminTaskFilter & { cursor?: string }]> = [
    ['newest first', { project_id: p }],
    ['the page at the middle', { project_id: p, cursor }],
    ['?status=failed', { project_id: p, status: 'failed' }],
    ['?status=failed, middle', { project_id: p, status: 'failed', cursor }],
    ['?operator_id=op-7', { project_id: p, operator_id: 'op-7' }],
    ['?schedule_id=sc_h3', { project_id: p, schedule_id: 'sc_h3' }],
    ['another project', { project_id: other!.id as string }],
    ['admin', {}],
    ['admin, middle', { cursor }],
    ['admin ?status=failed', { status: 'failed' }],
    ['admin ?stage=fetching', { stage: 'fetching' }],
  ];
  const time = async (text: string, params: unknown[]) => {
    const ms: number[] = [];
    let index = '';
    for (let i = 0; i < 33; i++) {
      const [row] = await raw.unsafe(`explain (analyze, format json) ${text}`, params as never[]);
      const out = (row!['QUERY PLAN'] as Array<{ Plan: Plan; 'Execution Time': number }>)[0]!;
      index = nodes(out.Plan).find((s) => s['Index Name'])?.['Index Name'] ?? nodes(out.Plan).map((s) => s['Node Type']).join(' > ');
      if (i >= 3) ms.push(out['Execution Time']);
    }
    return `${pct(ms, 50).toFixed(2)} / ${pct(ms, 95).toFixed(2)} | ${index}`;
  };
  console.log(`${n} tasks in the main project\n\n| query | p50 / p95 ms | index |\n| --- | --- | --- |`);
  for (const [name, q] of pages) {
    const { sql, params } = pageQuery(database.db, { limit: 50, ...q }).toSQL();
    console.log(`| ${name} | ${await time(sql, params)} |`);
  }
  console.log(`| counts of a project | ${await time('select status, sum(n) from task_counts where project_id = $1 group by status', [p])} |`);
  console.log(`| counts, every project | ${await time('select status, sum(n) from task_counts group by status', [])} |`);
  await raw.end();
  await database.close();
}

await main();
