// The lists of downloads are read by index on Postgres (docs/downloads.md): over a million recorded
// downloads, the plan of each page GET /v1/downloads and GET /v1/tasks/:id/downloads build
// (downloadPageQuery) is an index scan on the index meant for it, with no Sort and no Seq Scan,
// reading about a page of rows at any depth. An index or order that no longer matches brings the
// Sort over every row back, and this fails.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../db/client.js';
import { encodeCursor } from '../../domain/cursor.js';
import { type DownloadFilter, downloadPageQuery } from '../../domain/downloads/records.js';
import { createDatabase, dropDatabase } from '../support/env.js';
import { type Plan, planOf } from '../support/query-plans.js';


let url: string;
let database: Database;
let raw: postgres.Sql;
const total = 1_000_000;
const base = Date.UTC(2026, 10, 1);

beforeAll(async () => {
  url = await createDatabase();
  database = await openDatabase({ url, dataDir: '' });
  await database.migrate();
  raw = postgres(url, { max: 1, onnotice: () => {} });
  // 1,000 tasks over 8 projects, a million downloads one second apart, by project keys, links and
  // 50 operators. The tasks' rows are only what the foreign key needs.
  await raw.unsafe(`insert into projects (id, name, api_key_hash, webhook_secret, source_hosts, callback_hosts, retention_hours, max_running_tasks, submit_per_minute)
    select 'prj_p' || p, 'p' || p, 'hash' || p, 'secret', '[]', '[]', 168, 4, 60 from generate_series(0, 7) p`);
  await raw.unsafe(`insert into tasks (id, project_id, operator_id, type, file_name, source_url, page_size, priority, options, request_hash, status)
    select 'tsk_t' || t, 'prj_p' || (t % 8), 'op', 'csv', 'f', 'http://x', 500, 0, '{}', 'h' || t, 'succeeded' from generate_series(0, 999) t`);
  await raw.unsafe(`insert into downloads (id, task_id, project_id, file_name, file_index, via, by_kind, by_id, session_id, ip, user_agent, bytes, complete, started_at, at)
    select 'dl_d' || i, 'tsk_t' || (i % 1000), 'prj_p' || ((i % 1000) % 8), 'f.csv', 0,
      case when i % 3 = 0 then 'link' else 'api' end,
      case i % 3 when 0 then 'link' when 1 then 'project' else 'operator' end,
      case i % 3 when 0 then null when 1 then 'prj_p' || ((i % 1000) % 8) else 'op-' || (i % 50) end,
      null, '10.0.0.1', 'ua', 1000, true,
      to_timestamp(${base / 1000} + i), to_timestamp(${base / 1000} + i)
    from generate_series(1, ${total}) i`);
  await raw.unsafe('analyze downloads');
}, 600_000);

afterAll(async () => {
  await raw?.end();
  await database?.close();
  if (url) await dropDatabase(url);
});

const plan = (query: Parameters<typeof planOf>[1]): Promise<Plan[]> => planOf(raw, query);

const middle = () => encodeCursor({ id: `dl_d${total / 2}`, createdAt: new Date(base + (total / 2) * 1000) });

describe('download pages on Postgres, a million rows', () => {
  const cases: Array<[string, () => DownloadFilter & { cursor?: string }, string]> = [
    ['a project, newest first', () => ({ projectId: 'prj_p3' }), 'downloads_project_at_idx'],
    ['a project, in the middle', () => ({ projectId: 'prj_p3', cursor: middle() }), 'downloads_project_at_idx'],
    ['a project, since a time', () => ({ projectId: 'prj_p3', since: new Date(base + 400_000 * 1000) }), 'downloads_project_at_idx'],
    ['a task', () => ({ projectId: 'prj_p3', taskId: 'tsk_t3' }), 'downloads_task_at_idx'],
    ['a task, in the middle', () => ({ projectId: 'prj_p3', taskId: 'tsk_t3', cursor: middle() }), 'downloads_task_at_idx'],
    ["an operator's own", () => ({ projectId: 'prj_p3', operatorId: 'op-11' }), 'downloads_project_by_at_idx'],
    ["an operator's own, in the middle", () => ({ projectId: 'prj_p3', operatorId: 'op-11', cursor: middle() }), 'downloads_project_by_at_idx'],
  ];
  for (const [name, filter, index] of cases) {
    it(`${name}: ${index}`, async () => {
      const steps = await plan(downloadPageQuery(database.db, { limit: 50, ...filter() }));
      const types = steps.map((s) => s['Node Type']);
      expect(types, types.join(' > ')).not.toContain('Sort');
      expect(types).not.toContain('Incremental Sort');
      expect(types).not.toContain('Seq Scan');
      const scan = steps.find((s) => /Index (Only )?Scan/.test(s['Node Type']));
      expect(scan?.['Index Name']).toBe(index);
      // About a page: what the scan returned and what it read and dropped.
      expect(scan!['Actual Rows'] + (scan!['Rows Removed by Filter'] ?? 0)).toBeLessThan(500);
    });
  }

  // A session of one task (an e-mail's link) reads the task's index alone, the project and operator
  // a filter on its rows: a page costs the task's downloads (1,000 here, a third of them op-11's),
  // never the operator's others, whatever the planner guesses of the two together. (The planner may
  // sort the task's rows rather than walk them in order: bounded by the task, so that is allowed.)
  const oneTask: Array<[string, () => DownloadFilter & { cursor?: string }]> = [
    ["an operator's own of one task", () => ({ projectId: 'prj_p3', operatorId: 'op-11', taskId: 'tsk_t11' })],
    ["an operator's own of one task, in the middle", () => ({ projectId: 'prj_p3', operatorId: 'op-11', taskId: 'tsk_t11', cursor: middle() })],
  ];
  for (const [name, filter] of oneTask) {
    it(`${name}: downloads_task_at_idx alone`, async () => {
      const steps = await plan(downloadPageQuery(database.db, { limit: 50, ...filter() }));
      const types = steps.map((s) => s['Node Type']);
      expect(types).not.toContain('Seq Scan');
      const scans = steps.filter((s) => /Index (Only )?Scan/.test(s['Node Type']));
      expect(scans.map((s) => s['Index Name'])).toEqual(['downloads_task_at_idx']);
      expect(scans[0]!['Actual Rows'] + (scans[0]!['Rows Removed by Filter'] ?? 0)).toBeLessThanOrEqual(1000);
    });
  }
  it("an operator's own of one task: that operator's, of that task, newest first", async () => {
    const rows = await downloadPageQuery(database.db, { limit: 5, projectId: 'prj_p3', operatorId: 'op-11', taskId: 'tsk_t11' });
    expect(rows.map((r) => r.id)).toEqual(['dl_d999011', 'dl_d996011', 'dl_d993011', 'dl_d990011', 'dl_d987011', 'dl_d984011']);
    expect(new Set(rows.map((r) => `${r.taskId} ${r.byKind} ${r.byId}`))).toEqual(new Set(['tsk_t11 operator op-11']));
    // The project is still checked: another project's session sees none of the task's.
    expect(await downloadPageQuery(database.db, { limit: 5, projectId: 'prj_p4', operatorId: 'op-11', taskId: 'tsk_t11' })).toEqual([]);
  });
});

