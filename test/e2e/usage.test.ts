// The kept usage (db/functions/dc_usage_apply.sql, dc_usage_emails.sql) never drifts from the rows,
// on both databases: after bursts of every kind of task (plain and sync submissions, duplicates,
// successes of one file and of split files, deliveries to a destination, failures with and without
// kept files, cancellations, pauses, retries of cancelled and of failed tasks ending again either
// way, expiry, removal of unstarted tasks, e-mails sent, failed and in doubt), usage_days and usage_stored equal a full recount made here in
// TypeScript from tasks and deliveries; so does the database's own recount (dc_usage_recount). The
// quota check (dc_quota_check.sql) is raced with concurrent submissions.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, rowsOf } from '../../db/client.js';
import type { ProjectRow, StoredFile } from '../../db/schema.js';
import { claimEmail, finishEmail, recordEmailFailure } from '../../domain/callbacks/email-deliveries.js';
import { updateProject } from '../../domain/projects/admin.js';
import { acceptSubmission } from '../../domain/tasks/admission/accept.js';
import * as status from '../../domain/tasks/status.js';
import { newTask, type SubmitInput } from '../../domain/tasks/submit.js';
import { QuotaExceededError } from '../../domain/usage/quota.js';
import { projectUsage, utcToday } from '../../domain/usage/usage.js';
import { scratchDatabase, scratchProject } from '../support/env.js';

const FIELDS = ['tasks', 'succeeded', 'failed', 'rows', 'bytes', 'deliveries', 'emails'] as const;
type Day = Record<(typeof FIELDS)[number], number>;
type Usage = { days: Record<string, Day>; stored: Record<string, number> };

const input = (n: number | string, operator = 'op'): SubmitInput => ({ source_url: `http://127.0.0.1:9/x?n=${n}`, operator_id: operator, type: 'csv', page_size: 500, priority: 3 });
const fileOf = (i: number, rows: number, bytes: number, delivered = false): StoredFile => ({
  name: `part-${i}.csv`,
  key: `files/x/part-${i}.csv`,
  rows,
  bytes,
  sha256: '0'.repeat(64),
  ...(delivered ? { delivered_to: `s3://bucket/part-${i}.csv` } : {}),
});
const later = () => new Date(Date.now() + 3_600_000);
const past = () => new Date(Date.now() - 1000);
const dayOf = (t: string | Date) => new Date(t).toISOString().slice(0, 10);

for (const kind of ['postgres', 'pglite'] as const) {
  describe(`kept usage on ${kind}`, () => {
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

    /** What the database keeps, days with any use only. */
    // Every project of this database: a retry takes back the end it retries, so a retried task's
    // earlier ends are in neither the kept usage nor the rows (docs/usage.md).
    const mine = () => sql`select id from projects`;

    async function kept(): Promise<Usage> {
      const days: Usage['days'] = {};
      for (const r of await q<Record<string, unknown>>(sql`select project_id, day::text as day, ${sql.raw(FIELDS.join(', '))} from usage_days where project_id in (${mine()})`)) {
        const d = Object.fromEntries(FIELDS.map((f) => [f, Number(r[f])])) as Day;
        if (FIELDS.some((f) => d[f] !== 0)) days[`${r.project_id}/${String(r.day).slice(0, 10)}`] = d;
      }
      const stored = Object.fromEntries(
        (await q<{ project_id: string; bytes: string }>(sql`select project_id, bytes from usage_stored where project_id in (${mine()})`)).filter((r) => Number(r.bytes) !== 0).map((r) => [r.project_id, Number(r.bytes)]),
      );
      return { days, stored };
    }

    /** The same, recounted from every task and delivery row here, by the rules of docs/usage.md. */
    async function recounted(): Promise<Usage> {
      const days: Usage['days'] = {};
      const at = (p: string, d: string) => (days[`${p}/${d}`] ??= Object.fromEntries(FIELDS.map((f) => [f, 0])) as Day);
      const stored: Record<string, number> = {};
      const tasks = await q<{ id: string; project_id: string; status: string; created_at: string; finished_at: string | null; files: StoredFile[] | string }>(
        sql`select id, project_id, status, created_at, finished_at, files from tasks where project_id in (${mine()})`,
      );
      for (const t of tasks) {
        const files = (typeof t.files === 'string' ? JSON.parse(t.files) : t.files) as StoredFile[];
        at(t.project_id, dayOf(t.created_at)).tasks++;
        if (t.finished_at && ['succeeded', 'expired'].includes(t.status)) {
          const d = at(t.project_id, dayOf(t.finished_at));
          // A split export's zip holds its parts again: only the parts count as output.
          const parts = files.length > 1 ? files.filter((f) => !f.name.endsWith('.zip')) : files;
          d.succeeded++;
          d.rows += parts.reduce((s, f) => s + f.rows, 0);
          d.bytes += parts.reduce((s, f) => s + f.bytes, 0);
          if (files.some((f) => f.delivered_to)) d.deliveries++;
        }
        if (t.finished_at && t.status === 'failed') at(t.project_id, dayOf(t.finished_at)).failed++;
        if (['succeeded', 'failed'].includes(t.status) && files.length > 0) stored[t.project_id] = (stored[t.project_id] ?? 0) + files.reduce((s, f) => s + f.bytes, 0);
      }
      const mails = await q<{ project_id: string; created_at: string }>(
        sql`select t.project_id, d.created_at from deliveries d join tasks t on t.id = d.task_id where d.channel = 'email' and d.result = 'delivered' and t.project_id in (${mine()})`,
      );
      for (const m of mails) at(m.project_id, dayOf(m.created_at)).emails++;
      return { days, stored };
    }

    async function expectNoDrift(): Promise<Usage> {
      const truth = await recounted();
      expect(await kept()).toEqual(truth);
      expect(await q(sql`select * from usage_days where tasks < 0 or succeeded < 0 or failed < 0 or rows < 0 or bytes < 0 or deliveries < 0 or emails < 0`)).toEqual([]);
      expect(await q(sql`select * from usage_stored where bytes < 0`)).toEqual([]);
      return truth;
    }

    const ids = async (projectId: string) => (await q<{ id: string }>(sql`select id from tasks where project_id = ${projectId} order by created_at, id`)).map((r) => r.id);

    async function startAdmitted() {
      for (const p of projects) {
        const admitted = (await q<{ id: string }>(sql`select dc_admit_next(${p.id}, 10000) as id`)).map((r) => r.id);
        await Promise.all(admitted.map((id) => status.markRunning(database.db, id)));
      }
    }

    /** One e-mail's attempt to `to`, ending as `result`. */
    async function mail(taskId: string, to: string, result: 'delivered' | 'failed' | 'unknown' | 'refused') {
      const attempt = { taskId, event: 'task.succeeded', messageId: `<${taskId}.${to}@dc>`, recipient: to, attempt: 1 };
      if (result === 'refused') return recordEmailFailure(database.db, attempt, 'refused');
      const claim = await claimEmail(database.db, attempt);
      if (claim.kind !== 'claimed') throw new Error(`claim: ${claim.kind}`);
      await finishEmail(database.db, claim.deliveryId, { result, statusCode: result === 'delivered' ? 250 : 550 });
    }

    it('after bursts of every kind of task, concurrently, usage equals a full recount', async () => {
      // 40 per project at once, each body twice (the repeats are de-duplicated, not counted), a quarter sync.
      await Promise.all(
        projects.flatMap((p) => Array.from({ length: 80 }, (_, i) => acceptSubmission(database.db, newTask(p, input(i % 40, `op-${i % 3}`), `hash-${i % 40}`, undefined), i % 4 === 0))),
      );
      await startAdmitted();
      await expectNoDrift();
      const db = database.db;
      const chains: Array<Array<(id: string) => Promise<unknown>>> = [
        [(id) => status.finishTask(db, id, { status: 'succeeded', files: [fileOf(0, 120, 4096)], expiresAt: later() }), (id) => mail(id, 'a@x.test', 'delivered'), (id) => mail(id, 'b@x.test', 'delivered')],
        // Split files, delivered to a destination.
        [(id) => status.finishTask(db, id, { status: 'succeeded', files: [fileOf(0, 1000, 70_000, true), fileOf(1, 1000, 71_000, true), fileOf(2, 7, 900, true), { ...fileOf(3, 2007, 120_000, true), name: 'all.zip' }], expiresAt: later() }), (id) => mail(id, 'c@x.test', 'failed')],
        [(id) => status.finishTask(db, id, { status: 'failed', errorCode: 'source_unreachable', errorMessage: 'x' }), (id) => mail(id, 'd@x.test', 'delivered')],
        // A failed delivery keeps the files until they expire; the cleaner then forgets them.
        [(id) => status.finishTask(db, id, { status: 'failed', errorCode: 'destination_unreachable', errorMessage: 'x', kept: { files: [fileOf(0, 50, 5000)], expiresAt: past() } }), (id) => status.markBatchExpired(db, [id])],
        [(id) => status.finishTask(db, id, { status: 'failed', errorCode: 'destination_unreachable', errorMessage: 'x', kept: { files: [fileOf(0, 60, 6000)], expiresAt: later() } }), (id) => mail(id, 'e@x.test', 'unknown')],
        [(id) => status.finishTask(db, id, { status: 'succeeded', files: [fileOf(0, 10, 333)], expiresAt: past() }), (id) => status.markBatchExpired(db, [id]), (id) => mail(id, 'f@x.test', 'refused')],
        [(id) => status.cancelActive(db, id), (id) => status.resetForRetry(db, id)],
        // Retried failures: each takes back the failure it retries; the task counts its last end only.
        [(id) => status.finishTask(db, id, { status: 'failed', errorCode: 'source_unreachable', errorMessage: 'x' }), (id) => status.resetForRetry(db, id), (id) => status.finishTask(db, id, { status: 'succeeded', files: [fileOf(0, 70, 7000)], expiresAt: later() })],
        [(id) => status.finishTask(db, id, { status: 'failed', errorCode: 'source_unreachable', errorMessage: 'x' }), (id) => status.resetForRetry(db, id), (id) => status.finishTask(db, id, { status: 'failed', errorCode: 'source_unreachable', errorMessage: 'y' }), (id) => status.resetForRetry(db, id)],
        [(id) => status.finishTask(db, id, { status: 'failed', errorCode: 'destination_unreachable', errorMessage: 'x', kept: { files: [fileOf(0, 80, 8000)], expiresAt: later() } }), (id) => status.resetForRetry(db, id), (id) => status.finishTask(db, id, { status: 'succeeded', files: [fileOf(0, 80, 8000, true)], expiresAt: later() })],
        [(id) => status.finishTask(db, id, { status: 'failed', errorCode: 'destination_unreachable', errorMessage: 'x', kept: { files: [fileOf(0, 90, 9000)], expiresAt: past() } }), (id) => status.markBatchExpired(db, [id]), (id) => status.resetForRetry(db, id), (id) => status.cancelActive(db, id), (id) => status.resetForRetry(db, id), (id) => status.finishTask(db, id, { status: 'failed', errorCode: 'source_unreachable', errorMessage: 'z' })],
        [(id) => status.pauseQueued(db, id), (id) => status.resumePaused(db, id), (id) => status.cancelActive(db, id)],
        [(id) => status.pauseRunning(db, id), (id) => status.resumePaused(db, id)],
        [(id) => status.requeueRunning(db, id), (id) => status.deleteUnstarted(db, id)],
        [(id) => status.deleteUnstarted(db, id)],
        [(id) => status.finishTask(db, id, { status: 'succeeded', files: [], expiresAt: later() })],
      ];
      const all = (await Promise.all(projects.map((p) => ids(p.id)))).flat();
      await Promise.all(
        all.map(async (id, i) => {
          for (const step of chains[i % chains.length]!) await step(id);
        }),
      );
      await startAdmitted();
      const truth = await expectNoDrift();
      const total = (f: (typeof FIELDS)[number]) => Object.values(truth.days).reduce((s, d) => s + d[f], 0);
      for (const f of FIELDS) expect(total(f), f).toBeGreaterThan(0);
      expect(Object.keys(truth.stored).length).toBe(3);
      // The database's own recount (the backfill of a database made before usage was kept) agrees.
      await database.db.execute(sql`select dc_usage_recount()`);
      expect(await kept()).toEqual(truth);
    });

    it('a retried task counts its last end only (the retry takes back the failure); a split export its parts, not its zip', async () => {
      const p = await scratchProject(database, 'retried');
      const before = await projectUsage(database.db, p.id, { from: utcToday(), to: utcToday() });
      const a = await acceptSubmission(database.db, newTask(p, input('retried'), 'hash-retried', undefined), true);
      if (a.kind !== 'inserted') throw new Error(a.kind);
      await status.markRunning(database.db, a.task.id);
      await status.finishTask(database.db, a.task.id, { status: 'failed', errorCode: 'source_unreachable', errorMessage: 'x' });
      const failed = await projectUsage(database.db, p.id, { from: utcToday(), to: utcToday() });
      expect(failed.days[0]!.failed - before.days[0]!.failed).toBe(1);
      await status.resetForRetry(database.db, a.task.id);
      const retried = await projectUsage(database.db, p.id, { from: utcToday(), to: utcToday() });
      expect(retried.days[0]!.failed).toBe(before.days[0]!.failed);
      await status.finishTask(database.db, a.task.id, { status: 'succeeded', files: [fileOf(0, 42, 4200)], expiresAt: later() });
      const after = await projectUsage(database.db, p.id, { from: utcToday(), to: utcToday() });
      const [b, c] = [before.days[0]!, after.days[0]!];
      expect({ tasks: c.tasks - b.tasks, failed: c.failed - b.failed, succeeded: c.succeeded - b.succeeded, rows: c.rows - b.rows, bytes: c.bytes - b.bytes }).toEqual({
        tasks: 1, failed: 0, succeeded: 1, rows: 42, bytes: 4200,
      });
      expect(after.stored_bytes - before.stored_bytes).toBe(4200);
      // A split export: its parts count, not the zip that holds them again (stored, though, it is).
      const split = await acceptSubmission(database.db, newTask(p, input('split'), 'hash-split', undefined), true);
      if (split.kind !== 'inserted') throw new Error(split.kind);
      await status.markRunning(database.db, split.task.id);
      await status.finishTask(database.db, split.task.id, { status: 'succeeded', files: [fileOf(0, 5, 50), fileOf(1, 6, 60), { ...fileOf(2, 11, 100), name: 'x.zip' }], expiresAt: later() });
      const last = await projectUsage(database.db, p.id, { from: utcToday(), to: utcToday() });
      expect({ rows: last.days[0]!.rows - c.rows, bytes: last.days[0]!.bytes - c.bytes, stored: last.stored_bytes - after.stored_bytes }).toEqual({ rows: 11, bytes: 110, stored: 210 });
    });

    it('after statements of many rows and a rollback', async () => {
      const [a] = projects as [ProjectRow];
      await database.db.execute(sql`insert into tasks (id, project_id, operator_id, type, file_name, source_url, page_size, priority, options, status, request_hash, expires_at, finished_at, files)
        select 'bulk-' || g, ${a.id}, 'op', 'csv', 'f.csv', 'u', 500, 3, '{}'::jsonb, (array['succeeded','failed','cancelled'])[1 + g % 3], 'bulk-' || g,
               now() - interval '1 hour', now() - (g % 3) * interval '1 day', jsonb_build_array(jsonb_build_object('name', 'f.csv', 'key', 'k', 'rows', g, 'bytes', 10 * g, 'sha256', ''))
        from generate_series(1, 3000) g`);
      await expectNoDrift();
      const due = await status.dueForExpiry(database.db, 500);
      expect(await status.markBatchExpired(database.db, due)).toHaveLength(500);
      await expectNoDrift();
      await database.db.execute(sql`update tasks set status = 'expired' where status = 'succeeded' and expires_at < now()`);
      await expectNoDrift();
      // A thousand failures of yesterday retried in one statement (taken back on yesterday), then failing again today.
      const retried = await q<{ n: string }>(sql`with r as (update tasks set status = 'queued', finished_at = null, runs = runs + 1 where id like 'bulk-%' and status = 'failed' returning 1) select count(*) as n from r`);
      expect(Number(retried[0]!.n)).toBe(1000);
      await expectNoDrift();
      await database.db.execute(sql`update tasks set status = 'failed', finished_at = now() where id like 'bulk-%' and status = 'queued'`);
      await expectNoDrift();
      const before = await kept();
      await expect(
        database.db.transaction(async (tx) => {
          await tx.execute(sql`update tasks set status = 'succeeded', finished_at = now() where status = 'running'`);
          await tx.execute(sql`update tasks set files = '[]'::jsonb where project_id = ${a.id}`);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await kept()).toEqual(before);
      await expectNoDrift();
    });

    it('a database with tasks and no kept usage (made before it was kept) is backfilled once, at migrate', async () => {
      const truth = await expectNoDrift();
      const [p] = projects as [ProjectRow];
      const rerun = () => database.db.execute(sql`update drizzle.dc_repeatables set hash = 'edited' where name = 'dc_usage_recount.sql'`);
      await database.db.execute(sql`delete from usage_days`);
      await database.db.execute(sql`delete from usage_stored`);
      await rerun();
      await database.migrate();
      expect(await kept()).toEqual(truth);
      // Once: with usage kept, applying the file again recounts nothing (a kept figure stays as it is).
      await database.db.execute(sql`update usage_stored set bytes = bytes + 1 where project_id = ${p.id}`);
      await rerun();
      await database.migrate();
      expect((await kept()).stored[p.id]).toBe(truth.stored[p.id]! + 1);
      await database.db.execute(sql`update usage_stored set bytes = bytes - 1 where project_id = ${p.id}`);
    });

    it('racing submissions past a quota: none is accepted once it is reached, and no rate is taken', async () => {
      const [, p] = projects as [ProjectRow, ProjectRow];
      const month = await q<{ rows: string }>(sql`select coalesce(sum(rows), 0) as rows from usage_days where project_id = ${p.id} and day >= date_trunc('month', now() at time zone 'UTC')::date`);
      const used = Number(month[0]!.rows);
      await updateProject(database.db, p.id, { quota_monthly_rows: used + 100 });
      // Below the quota: 12 racing submissions are all accepted (rows are known only as they finish).
      const first = await Promise.all(Array.from({ length: 12 }, (_, i) => acceptSubmission(database.db, newTask(p, input(`race-${i}`), `race-${i}`, undefined))));
      expect(first.every((a) => a.kind === 'inserted')).toBe(true);
      // What was accepted finishes, 30 rows each: 360 rows, the documented overshoot (the output of the tasks live when it was reached).
      await Promise.all(first.map(async (a) => {
        if (a.kind !== 'inserted') return;
        await status.finishTask(database.db, a.task.id, { status: 'succeeded', files: [fileOf(0, 30, 300)], expiresAt: later() });
      }));
      const tat = await q<{ submit_tat: string | null }>(sql`select submit_tat from projects where id = ${p.id}`);
      const count = await q<{ n: string }>(sql`select count(*) as n from tasks where project_id = ${p.id}`);
      const second = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => acceptSubmission(database.db, newTask(p, input(`late-${i}`), `late-${i}`, undefined), i % 2 === 0)));
      for (const r of second) {
        expect(r.status).toBe('rejected');
        const err = (r as PromiseRejectedResult).reason as QuotaExceededError;
        expect(err).toBeInstanceOf(QuotaExceededError);
        expect(err.quota).toMatchObject({ name: 'quota_monthly_rows', limit: used + 100, used: used + 360 });
        expect(new Date(err.quota.resets_at!).getUTCDate()).toBe(1);
      }
      expect(await q(sql`select count(*) as n from tasks where project_id = ${p.id}`)).toEqual(count);
      expect(await q(sql`select submit_tat from projects where id = ${p.id}`)).toEqual(tat);
      // Stored bytes: refused at the quota, and a file's expiry lowers the use below it again.
      await updateProject(database.db, p.id, { quota_monthly_rows: null, quota_stored_bytes: 1 });
      await expect(acceptSubmission(database.db, newTask(p, input('stored'), 'stored', undefined))).rejects.toMatchObject({ code: 'quota_exceeded', quota: { name: 'quota_stored_bytes' } });
      await updateProject(database.db, p.id, { quota_stored_bytes: null });
      expect((await acceptSubmission(database.db, newTask(p, input('free'), 'free', undefined))).kind).toBe('inserted');
      await expectNoDrift();
    });
  });
}
