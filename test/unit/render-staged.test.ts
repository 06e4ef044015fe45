// The renders of CSV, JSON Lines and Parquet from staged pieces (in a memory store): a cancel (the
// render's signal) stops them between pieces, with nothing stored and no file left; a broken
// staged piece fails a Parquet render with storage_failed (our staging, not the source's data), not
// retried.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../db/schema.js';
import type { StoredSettings } from '../../model/project-settings.js';
import { MemoryStorage } from '../../platform/storage/memory.js';
import { toActivityFailure } from '../../activities/failure.js';
import { keys } from '../../domain/staging/keys.js';
import { writeMeta } from '../../domain/staging/meta.js';
import { encodeStaged, stagedExt } from '../../domain/staging/pieces.js';
import { renderText, type RenderDeps, type RenderJob } from '../../domain/staging/render-csv.js';
import { renderParquet } from '../../domain/staging/render-parquet.js';

const dataDir = mkdtempSync(join(tmpdir(), 'dc-render-unit-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const PAGE = 10;
const columns = [{ key: 'id', title: 'id' }, { key: 'name', title: 'name' }];
const rows = Array.from({ length: 3 * PAGE }, (_, i) => ({ id: i + 1, name: `客户 ${i + 1}` }));

type Type = 'csv' | 'jsonl' | 'parquet';
const renderOf = (type: Type) => (type === 'parquet' ? renderParquet : renderText);

/** A task of `type` whose 3 pages are staged, one piece each. */
async function staged(type: Type, taskId: string): Promise<{ deps: RenderDeps; task: TaskRow; storage: MemoryStorage }> {
  const storage = new MemoryStorage();
  await writeMeta(storage, taskId, { total: rows.length, pageSize: PAGE, columns });
  const ext = stagedExt(type);
  for (let p = 0; p < 3; p++) await storage.putBuffer(keys.piece(taskId, p, p + 1, ext), encodeStaged(ext, rows.slice(p * PAGE, (p + 1) * PAGE), columns));
  const task = { id: taskId, type, options: {}, fileName: 'out', createdAt: new Date('2026-11-24T00:00:00Z') } as unknown as TaskRow;
  return { deps: { storage, dataDir }, task, storage };
}

const job = (task: TaskRow, signal: AbortSignal, onProgress: (done: number) => void = () => {}): RenderJob => ({ task, settings: {} as StoredSettings, signal, onProgress });

describe('a render whose signal aborts', () => {
  for (const type of ['csv', 'jsonl', 'parquet'] as const) {
    it(`${type}: stops after the piece it is on, stores nothing and leaves no file`, async () => {
      const { deps, task, storage } = await staged(type, `tsk_abort_${type}`);
      const cancel = new AbortController();
      const done: number[] = [];
      const reason = new Error('cancelled');
      const render = renderOf(type)(deps, job(task, cancel.signal, (n) => (done.push(n), cancel.abort(reason))));
      await expect(render).rejects.toBe(reason);
      expect(done).toEqual([1]);
      expect(await storage.list(keys.output(task.id, ''))).toEqual([]);
      expect(readdirSync(join(dataDir, 'tmp')).filter((f) => f.startsWith(task.id))).toEqual([]);

      // Aborted before it starts: not one piece.
      const before = await staged(type, `tsk_before_${type}`);
      await expect(renderOf(type)(before.deps, job(before.task, AbortSignal.abort(reason)))).rejects.toBe(reason);
      expect(await before.storage.list(keys.output(before.task.id, ''))).toEqual([]);
    });
  }

  it('renders all pieces when the signal stays quiet', async () => {
    for (const type of ['csv', 'jsonl', 'parquet'] as const) {
      const { deps, task, storage } = await staged(type, `tsk_quiet_${type}`);
      const out = await renderOf(type)(deps, job(task, new AbortController().signal));
      expect(out.map((o) => o.rows), type).toEqual([rows.length]);
      expect(await storage.list(keys.output(task.id, ''))).toEqual(out.map((o) => o.key));
    }
  });
});

describe('a broken staged piece', () => {
  for (const [what, body, message] of [
    ['a line that is not JSON', '{"id":11,"name":"x"}\n{"id":12,\n', /00000001-00000002\.ndjson is not valid JSON lines/],
    ['fewer rows than fetched', '{"id":11,"name":"x"}\n', /00000001-00000002\.ndjson holds 1 rows where 10 were fetched/],
  ] as const) {
    it(`fails a Parquet render with storage_failed, not retried: ${what}`, async () => {
      const { deps, task, storage } = await staged('parquet', `tsk_broken_${what.length}`);
      await storage.putBuffer(keys.piece(task.id, 1, 2, 'ndjson'), Buffer.from(body));
      const err = await renderParquet(deps, job(task, new AbortController().signal)).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'DomainError', code: 'storage_failed', retryable: false, message: expect.stringMatching(message) });
      expect(toActivityFailure(err)).toMatchObject({ type: 'storage_failed', nonRetryable: true });
      expect(readdirSync(join(dataDir, 'tmp')).filter((f) => f.startsWith(task.id))).toEqual([]);
    });
  }
});
