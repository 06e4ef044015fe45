// Text the database must store (issue 30, "nothing stays running"): a task's end whose message
// quotes a source's column name holding a NUL, or a lone surrogate, or a delivery's error text, is
// stored on real Postgres and on PGlite, not refused; long text is bounded (model/storable.ts).
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client.js';
import { deliveries, projects, tasks } from '../../db/schema.js';
import { recordDelivery } from '../../domain/callbacks/deliveries.js';
import { finishEmail, recordEmailFailure } from '../../domain/callbacks/email-deliveries.js';
import { finishTask } from '../../domain/tasks/status.js';
import { STORABLE_TEXT_MAX, storableJson, storableText } from '../../model/storable.js';
import { newId, randomToken } from '../../platform/crypto.js';
import { scratchDatabase } from '../support/env.js';

const NUL_COLUMN = 'render_failed: column "a\u0000b" of row 1 cannot be written';
const LONE = 'half a pair: \uD83D and \uDE00 alone';

describe('storableText', () => {
  it('replaces NUL and lone surrogates, keeps pairs, and bounds the length without splitting a pair', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText(LONE)).toBe('half a pair: \uFFFD and \uFFFD alone');
    expect(storableText('ok 😀')).toBe('ok 😀');
    const long = storableText('x'.repeat(STORABLE_TEXT_MAX * 3));
    expect(long.length).toBe(STORABLE_TEXT_MAX);
    expect(long.endsWith('…')).toBe(true);
    const pairs = storableText('😀'.repeat(10), 6);
    expect(pairs).toBe('😀😀…');
    expect(storableJson({ 'k\u0000': ['v\u0000', 1, null, { n: '\uD800' }] })).toEqual({ 'k\uFFFD': ['v\uFFFD', 1, null, { n: '\uFFFD' }] });
  });
});

for (const kind of ['postgres', 'pglite'] as const) {
  describe(`on ${kind}`, () => {
    let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
    let db: Database['db'];
    let projectId: string;

    beforeAll(async () => {
      scratch = await scratchDatabase(kind);
      db = scratch.database.db;
      projectId = newId('prj');
      await db.insert(projects).values({
        id: projectId, name: 'storable', apiKeyHash: randomToken(16), webhookSecret: randomToken(16), sourceHosts: ['127.0.0.1'], callbackHosts: [],
        retentionHours: 24, maxRunningTasks: 10, submitPerMinute: 100, settings: {},
      });
    });

    afterAll(async () => {
      await scratch?.close();
    });

    async function runningTask(): Promise<string> {
      const id = newId('tsk');
      await db.insert(tasks).values({
        id, projectId, operatorId: 'op', type: 'parquet', fileName: 'export', sourceUrl: 'http://127.0.0.1/x', pageSize: 10, priority: 0,
        options: {}, status: 'running', stage: 'rendering', requestHash: randomToken(16),
      });
      return id;
    }

    it("fails a task whose message names a column holding a NUL (the failure is stored, the task ends)", async () => {
      const id = await runningTask();
      expect(await finishTask(db, id, { status: 'failed', errorCode: 'render_failed', errorMessage: NUL_COLUMN })).toBe(true);
      const [row] = await db.select().from(tasks).where(eq(tasks.id, id));
      expect(row).toMatchObject({ status: 'failed', errorCode: 'render_failed', errorMessage: 'render_failed: column "a\uFFFDb" of row 1 cannot be written' });
    });

    it('fails a task whose message holds lone surrogates or is very long, its kept files named with a NUL', async () => {
      const id = await runningTask();
      const file = { name: 'a\u0000b.csv', key: `files/${id}/1.csv`, bytes: 1, rows: 1, sha256: '0'.repeat(64) };
      const message = `${LONE} ${'y'.repeat(100_000)}`;
      expect(await finishTask(db, id, { status: 'failed', errorCode: 'internal_error', errorMessage: message, kept: { files: [file], expiresAt: new Date(Date.now() + 3600_000) } })).toBe(true);
      const [row] = await db.select().from(tasks).where(eq(tasks.id, id));
      expect(row!.errorMessage!.length).toBe(STORABLE_TEXT_MAX);
      expect(row!.errorMessage!.startsWith('half a pair: \uFFFD and \uFFFD alone y')).toBe(true);
      expect(row!.files).toEqual([{ ...file, name: 'a\uFFFDb.csv' }]);
    });

    it('succeeds a task whose file name holds a NUL', async () => {
      const id = await runningTask();
      const file = { name: 'x\u0000.parquet', key: `files/${id}/1.parquet`, bytes: 1, rows: 1, sha256: '0'.repeat(64) };
      expect(await finishTask(db, id, { status: 'succeeded', files: [file], expiresAt: new Date(Date.now() + 3600_000) })).toBe(true);
      const [row] = await db.select().from(tasks).where(eq(tasks.id, id));
      expect(row).toMatchObject({ status: 'succeeded', files: [{ ...file, name: 'x\uFFFD.parquet' }] });
    });

    it("records a callback's and an e-mail's delivery errors holding a NUL", async () => {
      const taskId = await runningTask();
      await recordDelivery(db, { taskId, event: 'task.failed', webhookId: `msg_${taskId}`, attempt: 1, statusCode: null, error: 'socket said \u0000' });
      const a = { taskId, recipient: 'a@example.test', event: 'task.failed', messageId: `<${taskId}@dc.test>`, attempt: 1 };
      await recordEmailFailure(db, a, 'refused \u0000 address');
      const id = newId('dlv');
      await db.insert(deliveries).values({ id, taskId, channel: 'email', recipient: 'b@example.test', result: 'sending', event: 'task.failed', webhookId: `<b${taskId}@dc.test>`, attempt: 1 });
      await finishEmail(db, id, { result: 'failed', statusCode: 550, error: `550 ${'\u0000'.repeat(3)}${'z'.repeat(5000)}` });
      const errors = (await db.select().from(deliveries).where(eq(deliveries.taskId, taskId))).map((d) => d.error ?? '');
      expect(errors).toHaveLength(3);
      expect(errors).toContain('socket said \uFFFD');
      expect(errors).toContain('refused \uFFFD address');
      expect(errors.find((e) => e.startsWith('550'))).toHaveLength(STORABLE_TEXT_MAX);
      expect(errors.join('')).not.toContain('\u0000');
    });
  });
}
