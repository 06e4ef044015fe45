// Expiry in batches (domain/tasks/expiry.ts) is exact on both databases: every task past its
// retention ends expired with its files gone from the store, nothing else is touched, and the
// kept counts (db/functions/dc_task_counts_apply.sql) equal a full count afterwards, with
// submissions arriving while the batches run. A batch that fails half-way (the store refusing a
// deletion, as a crashed worker would leave it) loses nothing: the next run finishes the work.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCleanupActivities } from '../../activities/cleanup.js';
import type { ActivityDeps } from '../../activities/deps.js';
import { type Database, rowsOf } from '../../db/client.js';
import type { ProjectRow } from '../../db/schema.js';
import { createProject } from '../../domain/projects/projects.js';
import { acceptSubmission } from '../../domain/tasks/admission/accept.js';
import { expireDue } from '../../domain/tasks/expiry.js';
import { newTask } from '../../domain/tasks/submit.js';
import { loadConfig } from '../../platform/config.js';
import { LocalStorage } from '../../platform/storage/local.js';
import type { Storage } from '../../platform/storage/types.js';
import { runActivity } from '../support/activity-env.js';
import { scratchDatabase } from '../support/env.js';

type Row = { id: string; status: string };

for (const kind of ['postgres', 'pglite'] as const) {
  describe(`expiry in batches on ${kind}`, () => {
    let database: Database;
    let close: (() => Promise<void>) | undefined;
    let dir: string;
    let storage: LocalStorage;
    const projects: ProjectRow[] = [];

    beforeAll(async () => {
      ({ database, close } = await scratchDatabase(kind));
      dir = mkdtempSync(join(tmpdir(), 'dc-expiry-'));
      storage = new LocalStorage(dir);
      for (let i = 0; i < 2; i++) {
        const settings = { name: `p${i}`, source_hosts: ['127.0.0.1:9'], callback_hosts: [], retention_hours: 1, max_running_tasks: 2, submit_per_minute: 10_000 };
        projects.push((await createProject(database.db, settings as never)).project);
      }
    }, 60_000);

    afterAll(async () => {
      await close?.();
      rmSync(dir, { recursive: true, force: true });
    });

    const q = async <T>(query: ReturnType<typeof sql>) => rowsOf<T>(await database.db.execute(query));
    const tally = (rows: Array<{ project_id: string; status: string; n: number | string }>) =>
      Object.fromEntries(rows.filter((r) => Number(r.n) !== 0).map((r) => [`${r.project_id}/${r.status}`, Number(r.n)]));

    /** `n` finished tasks named prefix-i in `status`, expiring `ageMs` (+ i s) ago, each with a file in the store. */
    async function load(project: ProjectRow, prefix: string, n: number, status: string, ageMs: number | null): Promise<string[]> {
      await q(sql`insert into tasks (id, project_id, operator_id, type, file_name, source_url, page_size, priority, options, status, request_hash, created_at, finished_at, expires_at)
        select ${prefix} || '-' || g, ${project.id}, 'op', 'csv', 'f.csv', 'http://127.0.0.1:9/x', 500, 3, '{}'::jsonb, ${status}, ${prefix} || g, now() - interval '2 hours', now() - interval '2 hours',
          case when ${ageMs}::float8 is null then null else now() - (${ageMs}::float8 + g * 1000) * interval '1 millisecond' end
        from generate_series(1, ${n}) g`);
      const ids = Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
      for (const id of ids) await storage.putBuffer(`files/${id}/f.csv`, Buffer.from('a,b\n1,2\n'));
      return ids;
    }
    const statusOf = async (ids: string[]) =>
      Object.fromEntries((await q<Row>(sql`select id, status from tasks where id in ${sql.raw(`(${ids.map((i) => `'${i}'`).join(',')})`)}`)).map((r) => [r.id, r.status]));
    const stored = async (ids: string[]) => (await Promise.all(ids.map((id) => storage.list(`files/${id}`)))).filter((k) => k.length > 0).length;

    it('expires every due task, and only those, with counts equal to a full count while submissions arrive', async () => {
      const [a, b] = [projects[0]!, projects[1]!];
      const due = [...(await load(a, 'due-a', 137, 'succeeded', 1000)), ...(await load(b, 'due-b', 30, 'succeeded', 5000))];
      const fresh = await load(a, 'fresh', 20, 'succeeded', -3600_000);
      const failed = await load(a, 'failed', 10, 'failed', null);
      const before = await load(b, 'old', 5, 'expired', 7200_000);

      let submitting = true;
      const submits = (async () => {
        let n = 0;
        while (submitting) {
          await acceptSubmission(database.db, newTask(a, { source_url: `http://127.0.0.1:9/x?n=${n}`, operator_id: 'op', type: 'csv', page_size: 500, priority: 3 }, `sub-${n++}`, undefined));
          // Requests arrive as I/O: without a turn of the event loop, PGlite's in-process answers
          // would keep this loop in microtasks and starve the cleaner's file deletions.
          await new Promise((r) => setTimeout(r, 2));
        }
        return n;
      })();
      const progress: number[] = [];
      const expired = await expireDue(database.db, storage, { batch: 25, concurrency: 4, onBatch: (n) => progress.push(n) }).finally(() => (submitting = false));
      const submitted = await submits;

      expect(expired).toBe(167);
      expect(progress).toEqual([25, 50, 75, 100, 125, 150, 167]);
      expect(new Set(Object.values(await statusOf(due)))).toEqual(new Set(['expired']));
      expect(await stored(due)).toBe(0);
      expect(new Set(Object.values(await statusOf(fresh)))).toEqual(new Set(['succeeded']));
      expect(await stored(fresh)).toBe(20);
      expect(new Set(Object.values(await statusOf(failed)))).toEqual(new Set(['failed']));
      // The long-expired tasks are not read again (tasks_expires_idx holds succeeded tasks only).
      expect(await stored(before)).toBe(5);

      const counted = tally(await q(sql`select project_id, status, count(*) as n from tasks group by 1, 2`));
      expect(tally(await q(sql`select project_id, status, n from task_counts`))).toEqual(counted);
      expect(counted).toMatchObject({ [`${a.id}/expired`]: 137, [`${b.id}/expired`]: 35, [`${a.id}/succeeded`]: 20, [`${a.id}/failed`]: 10, [`${a.id}/queued`]: submitted });
      expect(await expireDue(database.db, storage, { batch: 25, concurrency: 4 })).toBe(0);
    });

    it('a batch that fails half-way leaves its tasks due, and the next run removes them all', async () => {
      const a = projects[0]!;
      const due = await load(a, 'crash', 40, 'succeeded', 1000);
      let deletions = 0;
      // The store fails on the 6th deletion, as a worker dying mid-batch would stop there.
      const failing: Storage = Object.assign(Object.create(storage) as Storage, {
        deletePrefix: async (prefix: string) => {
          if (++deletions === 6) throw new Error('store unavailable');
          await storage.deletePrefix(prefix);
        },
      });
      await expect(expireDue(database.db, failing, { batch: 10, concurrency: 1 })).rejects.toThrow('store unavailable');
      expect(new Set(Object.values(await statusOf(due)))).toEqual(new Set(['succeeded']));
      expect(await stored(due)).toBe(35);

      expect(await expireDue(database.db, storage, { batch: 10, concurrency: 3 })).toBe(40);
      expect(new Set(Object.values(await statusOf(due)))).toEqual(new Set(['expired']));
      expect(await stored(due)).toBe(0);
      const counted = tally(await q(sql`select project_id, status, count(*) as n from tasks group by 1, 2`));
      expect(tally(await q(sql`select project_id, status, n from task_counts`))).toEqual(counted);
    });

    it('the activity heartbeats within a batch, not only between batches', async () => {
      const due = await load(projects[0]!, 'beat', 30, 'succeeded', 1000);
      const config = loadConfig({ DATA_DIR: dir, CLEANUP_BATCH_SIZE: '100', CLEANUP_DELETE_CONCURRENCY: '2' });
      const { expireTasks } = createCleanupActivities({ db: database.db, storage, config } as Partial<ActivityDeps> as ActivityDeps);
      const run = runActivity({}, () => expireTasks({}));
      expect(await run.result).toEqual({ expired: 30 });
      // One for the session purge's batch first; then one batch of 30: a heartbeat after each deletion
      // (the running total is that of the batches before), then one for the batch. The SDK throttles
      // what reaches the server.
      expect(run.heartbeats).toEqual([{ expired: 0 }, ...Array.from({ length: 30 }, () => ({ expired: 0 })), { expired: 30 }]);
      expect(await stored(due)).toBe(0);
    });
  });
}
