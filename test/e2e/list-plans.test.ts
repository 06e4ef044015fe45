// Every list page is read by index on Postgres (issue 24, target 1; docs/adr/0029-list-queries-by-index.md):
// over 24,000 analysed tasks, the plan of each page the API builds (pageQuery, the code path of
// GET /v1/tasks and GET /v1/admin/tasks) and of the cleaner's batch is an index scan on the index
// meant for it, with no Sort and no Seq Scan, reading about a page of rows. A query or index whose
// order no longer matches brings back the Sort over every row, and this fails.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHistory } from '../../bench/history.js';
import { type Database, openDatabase } from '../../db/client.js';
import { createProject } from '../../domain/projects/projects.js';
import { encodeCursor } from '../../domain/cursor.js';
import { type AdminTaskFilter, pageQuery } from '../../domain/tasks/queries.js';
import { dueForExpiryQuery } from '../../domain/tasks/status.js';
import { createDatabase, dropDatabase } from '../support/env.js';
import { type Plan, planOf } from '../support/query-plans.js';


let url: string;
let database: Database;
let raw: postgres.Sql;
let main: string;
const total = 24_000;

beforeAll(async () => {
  url = await createDatabase();
  database = await openDatabase({ url, dataDir: '' });
  await database.migrate();
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push((await createProject(database.db, { name: `p${i}`, source_hosts: ['127.0.0.1'], callback_hosts: [], retention_hours: 168, max_running_tasks: 5, submit_per_minute: 60 } as never)).project.id);
  main = ids[0]!;
  await loadHistory(database, main, ids.slice(1), total);
  raw = postgres(url, { max: 1, onnotice: () => {} });
}, 120_000);

afterAll(async () => {
  await raw?.end();
  await database?.close();
  if (url) await dropDatabase(url);
});

const plan = (query: Parameters<typeof planOf>[1]): Promise<Plan[]> => planOf(raw, query);

const middle = () => encodeCursor({ id: `tk_h${total / 2}`, createdAt: new Date(Date.now() - (total / 2) * 500) });
const day = { created_after: new Date(Date.now() - total * 250 - 3_600_000), created_before: new Date(Date.now() - total * 250) };

describe('list pages on Postgres', () => {
  const cases: Array<[string, () => AdminTaskFilter & { cursor?: string }, string]> = [
    ['newest first', () => ({ project_id: main }), 'tasks_(project_)?created_idx'],
    ['a page in the middle', () => ({ project_id: main, cursor: middle() }), 'tasks_(project_)?created_idx'],
    ['by status', () => ({ project_id: main, status: 'failed' }), 'tasks_(project_status|status_created)_idx'],
    ['by status, in the middle', () => ({ project_id: main, status: 'failed', cursor: middle() }), 'tasks_(project_status|status_created)_idx'],
    ['by operator', () => ({ project_id: main, operator_id: 'op-7' }), 'tasks_project_operator_idx'],
    ['by operator, in the middle', () => ({ project_id: main, operator_id: 'op-7', cursor: middle() }), 'tasks_project_operator_idx'],
    ['by schedule', () => ({ project_id: main, schedule_id: 'sc_h3' }), 'tasks_project_schedule_idx'],
    ['a date range', () => ({ project_id: main, ...day }), 'tasks_(project_)?created_idx'],
    ['admin, every project', () => ({}), 'tasks_created_idx'],
    ['admin, in the middle', () => ({ cursor: middle() }), 'tasks_created_idx'],
    ['admin, by status', () => ({ status: 'failed' }), 'tasks_status_created_idx'],
    ['admin, by stage', () => ({ stage: 'fetching' }), 'tasks_stage_created_idx'],
  ];
  for (const [name, filter, index] of cases) {
    it(`${name}: ${index}`, async () => {
      const steps = await plan(pageQuery(database.db, { limit: 50, ...filter() }));
      const types = steps.map((s) => s['Node Type']);
      expect(types, types.join(' > ')).not.toContain('Sort');
      expect(types).not.toContain('Incremental Sort');
      expect(types).not.toContain('Seq Scan');
      const scan = steps.find((s) => /Index (Only )?Scan/.test(s['Node Type']));
      expect(scan?.['Index Name']).toMatch(new RegExp(`^${index}$`));
      // About a page: what the scan returned and what it read and dropped.
      expect(scan!['Actual Rows'] + (scan!['Rows Removed by Filter'] ?? 0)).toBeLessThan(500);
    });
  }

  it("the cleaner's batch reads succeeded tasks only, not every expired one", async () => {
    const steps = await plan(dueForExpiryQuery(database.db, 100));
    const scan = steps.find((s) => /Index (Only )?Scan/.test(s['Node Type']));
    expect(scan?.['Index Name']).toBe('tasks_expires_idx');
    expect(steps.map((s) => s['Node Type'])).not.toContain('Seq Scan');
    expect(scan!['Rows Removed by Filter'] ?? 0).toBe(0);
  });
});
