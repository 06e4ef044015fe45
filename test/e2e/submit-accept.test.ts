// The one-statement acceptance of a submission (domain/tasks/admission/accept.ts) on both databases it runs
// on, real Postgres (concurrent connections) and PGlite (the embedded default): de-duplication,
// the submit rate and admission's slot decision stay exact under concurrent submissions, and the
// row the statement reports is the row it stored.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client.js';
import { type ProjectRow, tasks } from '../../db/schema.js';
import { createProject } from '../../domain/projects/projects.js';
import { type Acceptance, acceptSubmission } from '../../domain/tasks/admission/accept.js';
import { RateLimitedError } from '../../domain/tasks/rate.js';
import { newTask, type SubmitInput } from '../../domain/tasks/submit.js';
import { scratchDatabase } from '../support/env.js';

const input = (n: number | string, extra: Partial<SubmitInput> = {}): SubmitInput => ({ source_url: `http://127.0.0.1:9/x?n=${n}`, operator_id: 'op', type: 'csv', page_size: 500, priority: 3, ...extra });

for (const kind of ['postgres', 'pglite'] as const) {
  describe(`accepting submissions on ${kind}`, () => {
    let database: Database;
    let close: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      ({ database, close } = await scratchDatabase(kind));
    }, 60_000);

    afterAll(async () => {
      await close?.();
    });

    const project = async (settings: { max_running_tasks?: number; submit_per_minute?: number } = {}): Promise<ProjectRow> =>
      (await createProject(database.db, { name: 'p', source_hosts: ['127.0.0.1:9'], callback_hosts: [], retention_hours: 1, max_running_tasks: 100, submit_per_minute: 1000, ...settings } as never)).project;

    const accept = (p: ProjectRow, i: SubmitInput, hash: string, key?: string): Promise<Acceptance | RateLimitedError> =>
      acceptSubmission(database.db, newTask(p, i, hash, key)).catch((err: unknown) => {
        if (err instanceof RateLimitedError) return err;
        throw err;
      });

    it('30 identical submissions at once record one task; the others are its duplicates', async () => {
      const p = await project({ submit_per_minute: 2 });
      const answers = await Promise.all(Array.from({ length: 30 }, () => accept(p, input('same'), 'hash-same')));
      const inserted = answers.filter((a) => !(a instanceof RateLimitedError) && a.kind === 'inserted');
      expect(inserted).toHaveLength(1);
      const id = (inserted[0] as Extract<Acceptance, { kind: 'inserted' }>).task.id;
      for (const a of answers) if (!(a instanceof RateLimitedError) && a.kind === 'duplicate') expect(a.taskId).toBe(id);
      expect(await database.db.select().from(tasks).where(eq(tasks.projectId, p.id))).toHaveLength(1);
      // The duplicates were free: of a quota of 2, one is left for another request, then none.
      expect(await accept(p, input('other'), 'hash-other')).toMatchObject({ kind: 'inserted', rate: { limit: 2, remaining: 0 } });
      expect(await accept(p, input('third'), 'hash-third')).toBeInstanceOf(RateLimitedError);
    });

    it('the same Idempotency-Key at once records one task; another body under it is reported as such', async () => {
      const p = await project();
      const answers = await Promise.all(Array.from({ length: 20 }, () => accept(p, input('k'), 'hash-k', 'key-1')));
      expect(answers.filter((a) => !(a instanceof RateLimitedError) && a.kind === 'inserted')).toHaveLength(1);
      const other = await accept(p, input('k2'), 'hash-k2', 'key-1');
      expect(other).toMatchObject({ kind: 'duplicate', requestHash: 'hash-k' });
    });

    it('takes exactly the quota of 25 concurrent submissions, and refuses the rest with a true Retry-After', async () => {
      const p = await project({ submit_per_minute: 10 });
      const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => accept(p, input(i), `hash-r${i}`)));
      expect(answers.filter((a) => !(a instanceof RateLimitedError) && a.kind === 'inserted')).toHaveLength(10);
      const refused = answers.filter((a): a is RateLimitedError => a instanceof RateLimitedError);
      expect(refused).toHaveLength(15);
      for (const r of refused) {
        expect(r.rate).toMatchObject({ limit: 10, remaining: 0 });
        // One submission every 6 s: the next is accepted 6 s after the first (less the time spent).
        expect(r.retryAfter).toBeGreaterThanOrEqual(5);
        expect(r.retryAfter).toBeLessThanOrEqual(6);
      }
      expect(await database.db.select().from(tasks).where(eq(tasks.projectId, p.id))).toHaveLength(10);
    });

    it('admits in the statement only while slots are free and nobody waits, never beyond max_running_tasks', async () => {
      const p = await project({ max_running_tasks: 3 });
      const answers = (await Promise.all(Array.from({ length: 12 }, (_, i) => accept(p, input(i), `hash-a${i}`)))) as Array<Extract<Acceptance, { kind: 'inserted' }>>;
      expect(answers.every((a) => a.kind === 'inserted')).toBe(true);
      expect(answers.filter((a) => a.task.admittedAt !== null)).toHaveLength(3);
      expect(answers.every((a) => !a.dispatch)).toBe(true);
      const rows = await database.db.select().from(tasks).where(eq(tasks.projectId, p.id));
      expect(rows.filter((r) => r.admittedAt !== null)).toHaveLength(3);
      // A slot freed while others wait: the new task must not jump the queue, the caller dispatches.
      const done = rows.find((r) => r.admittedAt !== null)!;
      await database.db.update(tasks).set({ status: 'succeeded', admittedAt: null }).where(eq(tasks.id, done.id));
      const late = await accept(p, input('late'), 'hash-late');
      expect(late).toMatchObject({ kind: 'inserted', dispatch: true, task: { admittedAt: null } });
    });

    it('reports the row exactly as stored', async () => {
      const p = await project();
      const a = await accept(p, input('row', { callback: 'http://127.0.0.1:9/cb', title: 't', priority: 1 }), 'hash-row', 'key-row');
      if (a instanceof RateLimitedError || a.kind !== 'inserted') throw new Error(`not inserted: ${JSON.stringify(a)}`);
      const [stored] = await database.db.select().from(tasks).where(eq(tasks.id, a.task.id));
      expect(a.task).toEqual(stored);
    });
  });
}
