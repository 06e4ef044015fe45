// The kept task counts (db/functions/dc_task_counts_apply.sql) never drift from the rows, on both
// databases: after concurrent submissions and every status change the domain makes (admission,
// start, finish, fail, cancel, retry, pause, resume, requeue, expiry, removal), and after the
// statements the domain never makes but an operator or a later cleanup might (many rows at once,
// deletions, a task moved between projects, a rolled-back transaction), task_counts equals a full
// count(*) group by project_id, status. The counts the API and /metrics answer come from it.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, rowsOf } from '../../db/client.js';
import type { ProjectRow } from '../../db/schema.js';
import { acceptSubmission } from '../../domain/tasks/admission/accept.js';
import { countAllTasks, countTasks, taskGauges } from '../../domain/tasks/counts.js';
import * as status from '../../domain/tasks/status.js';
import { newTask, type SubmitInput } from '../../domain/tasks/submit.js';
import { scratchDatabase, scratchProject } from '../support/env.js';

type Tally = Record<string, number>;
const input = (n: number | string, operator = 'op'): SubmitInput => ({ source_url: `http://127.0.0.1:9/x?n=${n}`, operator_id: operator, type: 'csv', page_size: 500, priority: 3 });
const done = { files: [], expiresAt: new Date(Date.now() - 1000) };

for (const kind of ['postgres', 'pglite'] as const) {
  describe(`kept task counts on ${kind}`, () => {
    let database: Database;
    let close: (() => Promise<void>) | undefined;
    const projects: ProjectRow[] = [];

    beforeAll(async () => {
      ({ database, close } = await scratchDatabase(kind));
      for (let i = 0; i < 3; i++) projects.push(await scratchProject(database, `p${i}`));
    }, 60_000);

    afterAll(async () => {
      await close?.();
    });

    const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await database.db.execute(query));
    const tally = (rows: Array<{ project_id: string; status: string; n: number | string }>): Tally =>
      Object.fromEntries(rows.filter((r) => Number(r.n) !== 0).map((r) => [`${r.project_id}/${r.status}`, Number(r.n)]));
    const counted = async () => tally(await q(sql`select project_id, status, count(*) as n from tasks group by 1, 2`));
    const kept = async () => tally(await q(sql`select project_id, status, n from task_counts`));

    /** The kept counts equal the rows, and every read built on them answers what counting rows would. */
    async function expectNoDrift(): Promise<Tally> {
      const truth = await counted();
      expect(await kept()).toEqual(truth);
      expect(await q(sql`select * from task_counts where n < 0`)).toEqual([]);
      const byStatus = (prefix: string) => {
        const out: Tally = {};
        for (const [k, n] of Object.entries(truth)) if (k.startsWith(prefix)) out[k.split('/')[1]!] = (out[k.split('/')[1]!] ?? 0) + n;
        return out;
      };
      const nonZero = (c: Record<string, number>) => Object.fromEntries(Object.entries(c).filter(([, n]) => n !== 0));
      expect(nonZero(await countAllTasks(database.db, {}))).toEqual(byStatus(''));
      for (const p of projects) expect(nonZero(await countTasks(database.db, p.id, {}))).toEqual(byStatus(`${p.id}/`));
      const gauges = await taskGauges(database.db);
      expect(nonZero(gauges.byStatus)).toEqual(byStatus(''));
      expect(gauges.queuedByProject).toEqual(Object.fromEntries(Object.entries(truth).filter(([k]) => k.endsWith('/queued')).map(([k, n]) => [k.split('/')[0], n])));
      return truth;
    }

    const ids = async (projectId: string) => (await q<{ id: string }>(sql`select id from tasks where project_id = ${projectId} order by created_at, id`)).map((r) => r.id);

    it('after a burst of concurrent submissions, admissions and starts', async () => {
      // 40 per project at once, each body twice: the repeats are de-duplicated, not counted.
      await Promise.all(projects.flatMap((p) => Array.from({ length: 80 }, (_, i) => acceptSubmission(database.db, newTask(p, input(i % 40, `op-${i % 3}`), `hash-${i % 40}`, undefined)))));
      for (const p of projects) {
        const admitted = (await q<{ id: string }>(sql`select dc_admit_next(${p.id}, 10000) as id`)).map((r) => r.id);
        await Promise.all(admitted.map((id) => status.markRunning(database.db, id)));
      }
      const truth = await expectNoDrift();
      expect(Object.values(truth).reduce((a, b) => a + b, 0)).toBe(120);
    });

    it('after every status change the domain makes, concurrently across tasks', async () => {
      const chains: Array<Array<(id: string) => Promise<unknown>>> = [
        [(id) => status.cancelActive(database.db, id), (id) => status.resetForRetry(database.db, id)],
        [(id) => status.finishTask(database.db, id, { status: 'failed', errorCode: 'source_unreachable', errorMessage: 'x' }), (id) => status.resetForRetry(database.db, id)],
        [(id) => status.pauseQueued(database.db, id), (id) => status.resumePaused(database.db, id), (id) => status.cancelActive(database.db, id)],
        [(id) => status.pauseRunning(database.db, id), (id) => status.resumePaused(database.db, id)],
        [(id) => status.finishTask(database.db, id, { status: 'succeeded', ...done }), (id) => status.markBatchExpired(database.db, [id])],
        [(id) => status.requeueRunning(database.db, id), (id) => status.deleteUnstarted(database.db, id)],
        [(id) => status.finishTask(database.db, id, { status: 'succeeded', ...done })],
        [(id) => status.deleteUnstarted(database.db, id)],
      ];
      const all = (await Promise.all(projects.map((p) => ids(p.id)))).flat();
      // Each task runs its chain in order; the chains of all tasks run at once.
      await Promise.all(all.map(async (id, i) => {
        for (const step of chains[i % chains.length]!) await step(id);
      }));
      await expectNoDrift();
      for (const p of projects) {
        const admitted = (await q<{ id: string }>(sql`select dc_admit_next(${p.id}, 10000) as id`)).map((r) => r.id);
        await Promise.all(admitted.map((id) => status.markRunning(database.db, id)));
      }
      const truth = await expectNoDrift();
      for (const s of ['queued', 'running', 'cancelled', 'succeeded', 'expired']) expect(Object.keys(truth).some((k) => k.endsWith(`/${s}`)), s).toBe(true);
    });

    it('after statements of many rows, deletions, a move between projects and a rollback', async () => {
      const [a, b] = projects as [ProjectRow, ProjectRow];
      await database.db.execute(sql`insert into tasks (id, project_id, operator_id, type, file_name, source_url, page_size, priority, options, status, request_hash, expires_at)
        select 'bulk-' || g, ${a.id}, 'op', 'csv', 'f.csv', 'u', 500, 3, '{}'::jsonb, (array['succeeded','failed','cancelled'])[1 + g % 3], 'bulk-' || g, now() - interval '1 hour'
        from generate_series(1, 3000) g`);
      await expectNoDrift();
      // The cleaner's own path: a batch read by the expiry index, marked by one UPDATE.
      const due = await status.dueForExpiry(database.db, 500);
      expect(due.length).toBe(500);
      expect(await status.markBatchExpired(database.db, due)).toHaveLength(500);
      await expectNoDrift();
      // An expiry of every due task at once, across projects, then the cleanup of expired rows.
      await database.db.execute(sql`update tasks set status = 'expired' where status = 'succeeded' and expires_at < now()`);
      await expectNoDrift();
      await database.db.execute(sql`delete from tasks where status = 'expired'`);
      await expectNoDrift();
      await database.db.execute(sql`update tasks set project_id = ${b.id} where id in (select id from tasks where project_id = ${a.id} and status = 'failed' limit 100)`);
      await expectNoDrift();
      const before = await kept();
      await expect(database.db.transaction(async (tx) => {
        await tx.execute(sql`update tasks set status = 'cancelled' where project_id = ${b.id}`);
        await tx.execute(sql`delete from tasks where project_id = ${a.id}`);
        throw new Error('rolled back');
      })).rejects.toThrow('rolled back');
      expect(await kept()).toEqual(before);
      await expectNoDrift();
    });

    it('counts with a filter the kept counts cannot answer still count the rows', async () => {
      const [p] = projects as [ProjectRow];
      const rows = await q<{ status: string; n: number | string }>(sql`select status, count(*) as n from tasks where project_id = ${p.id} and operator_id = 'op-1' group by 1`);
      expect(rows.length).toBeGreaterThan(0);
      const byOperator = await countTasks(database.db, p.id, { operator_id: 'op-1' });
      for (const r of rows) expect(byOperator[r.status as keyof typeof byOperator]).toBe(Number(r.n));
      expect(Object.values(byOperator).reduce((x, y) => x + y, 0)).toBeLessThan(Object.values(await countTasks(database.db, p.id, {})).reduce((x, y) => x + y, 0));
    });
  });
}
