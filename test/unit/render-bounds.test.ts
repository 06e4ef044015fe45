// A render's bounds (docs/operations.md#bounds-of-one-render): at most MAX_PARTS parts (too_many_parts past it, in
// every format, before the file past the cap is written), a few files open at a time however many
// parts there are (counted in /proc/self/fd), and a stream that fails mid-render (a part removed)
// rejects that render rather than raising an 'error' event nobody hears, which ends the process.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../db/schema.js';
import type { StoredSettings } from '../../model/project-settings.js';
import { MemoryStorage } from '../../platform/storage/memory.js';
import { toActivityFailure } from '../../activities/failure.js';
import { checkPartsAhead, resolveSplit } from '../../domain/formats/split.js';
import { keys } from '../../domain/staging/keys.js';
import { writeMeta } from '../../domain/staging/meta.js';
import { encodeStaged, stagedExt } from '../../domain/staging/pieces.js';
import type { RenderDeps, RenderJob } from '../../domain/staging/render-csv.js';
import { renderTask } from '../../domain/staging/render.js';

const dataDir = mkdtempSync(join(tmpdir(), 'dc-render-bounds-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// Any error event nobody listened to ends up here (vitest would also report it, after the test).
const unheard: unknown[] = [];
const hear = (err: unknown) => unheard.push(err);
beforeEach(() => {
  unheard.length = 0;
  process.on('uncaughtException', hear);
});
afterEach(() => {
  process.off('uncaughtException', hear);
});

type Type = 'csv' | 'jsonl' | 'parquet' | 'excel';
const columns = [{ key: 'id', title: 'id' }, { key: 'name', title: 'name' }];
const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `客户 ${i + 1}` }));

interface Staged {
  deps: RenderDeps;
  task: TaskRow;
  storage: MemoryStorage;
}

/** A task of `type` whose `total` rows are staged in pieces of `pageSize`-row pages, one page a piece. */
async function staged(type: Type, taskId: string, total: number, pageSize: number, options: Record<string, unknown>, maxParts?: number): Promise<Staged> {
  const storage = new MemoryStorage();
  const rows = rowsOf(total);
  await writeMeta(storage, taskId, { total, pageSize, columns });
  const ext = stagedExt(type);
  for (let p = 0; p * pageSize < total; p++) await storage.putBuffer(keys.piece(taskId, p, p + 1, ext), encodeStaged(ext, rows.slice(p * pageSize, (p + 1) * pageSize), columns));
  const task = { id: taskId, type, sourceUrl: 'http://127.0.0.1/rows', options, fileName: 'out', createdAt: new Date('2026-11-24T00:00:00Z') } as unknown as TaskRow;
  return { deps: { storage, dataDir, maxParts }, task, storage };
}

const job = (task: TaskRow, onProgress: (done: number) => void = () => {}): RenderJob => ({ task, settings: {} as StoredSettings, signal: new AbortController().signal, onProgress });
const leftFiles = (taskId: string) => readdirSync(join(dataDir, 'tmp')).filter((f) => f.startsWith(taskId));
const openFiles = () => readdirSync('/proc/self/fd').length;

const FORMATS: Array<[string, Type, Record<string, unknown>]> = [
  ['csv', 'csv', {}],
  ['csv.gz', 'csv', { compression: 'gzip' }],
  ['jsonl', 'jsonl', {}],
  ['jsonl.zst', 'jsonl', { compression: 'zstd' }],
  ['parquet', 'parquet', {}],
  ['xlsx', 'excel', {}],
];

describe('MAX_PARTS', () => {
  for (const [name, type, options] of FORMATS) {
    it(`${name}: the part past the cap fails the render too_many_parts, not retried, nothing stored, no file left`, async () => {
      const { deps, task, storage } = await staged(type, `tsk_cap_${name.replace('.', '_')}`, 40, 10, { ...options, max_file_rows: 3 }, 5);
      const err = await renderTask(deps, job(task)).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'DomainError', code: 'too_many_parts', retryable: false, message: expect.stringMatching(/more than 5 files .*MAX_PARTS/) });
      expect(toActivityFailure(err)).toMatchObject({ type: 'too_many_parts', nonRetryable: true });
      expect(await storage.list(keys.output(task.id, ''))).toEqual([]);
      expect(leftFiles(task.id)).toEqual([]);
      // Exactly at the cap it renders: 15 rows at 3 a file are 5 parts and their zip.
      const at = await staged(type, `tsk_at_cap_${name.replace('.', '_')}`, 15, 5, { ...options, max_file_rows: 3 }, 5);
      expect((await renderTask(at.deps, job(at.task))).map((o) => o.rows)).toEqual([3, 3, 3, 3, 3, 15]);
    });
  }

  it('is refused as soon as the rows are known when they certainly need more parts (every format splits at max_file_rows)', () => {
    const limits = resolveSplit('csv', { max_file_rows: 1 }, {} as StoredSettings, 1000);
    expect(() => checkPartsAhead(20_000, limits)).toThrow(expect.objectContaining({ code: 'too_many_parts', message: expect.stringMatching(/20000 rows at 1 a file make 20000 files; a task may have at most 1000 files/) }));
    expect(() => checkPartsAhead(1000, limits)).not.toThrow();
    // No row limit of its own: a byte limit alone is only known at the render.
    expect(() => checkPartsAhead(20_000_000, resolveSplit('csv', {}, {} as StoredSettings, 1000))).not.toThrow();
    expect(() => checkPartsAhead(20_000, resolveSplit('excel', { max_file_rows: 10 }, {} as StoredSettings, 1000))).toThrow(expect.objectContaining({ code: 'too_many_parts' }));
  });
});

describe('files open during a render', () => {
  // Before: the zip of the parts opened every part at once (EMFILE past the limit, and its 'error'
  // unheard ended the process). Now each part is opened when written or zipped, closed before the next.
  for (const [name, type, parts] of [['csv', 'csv', 2000], ['parquet', 'parquet', 500], ['xlsx', 'excel', 300]] as const) {
    it(`${name}: ${parts} parts are written and zipped with a few files open at a time`, async () => {
      const { deps, task } = await staged(type, `tsk_fds_${name}`, parts, 100, { max_file_rows: 1 }, parts);
      const base = openFiles();
      let peak = 0;
      const sample = () => (peak = Math.max(peak, openFiles() - base));
      // Sampled between the render's own steps (each piece) and on the timer (the zip has no steps).
      const timer = setInterval(sample, 1);
      try {
        const out = await renderTask(deps, job(task, sample));
        expect(out).toHaveLength(parts + 1);
      } finally {
        clearInterval(timer);
      }
      sample();
      // A part being written, the zip being written, the part being read into it, the sampler's own.
      expect(peak, `peak of files open beyond the ${base} before`).toBeLessThanOrEqual(4);
      expect(leftFiles(task.id)).toEqual([]);
    });
  }
});

describe('a stream failing mid-render', () => {
  for (const [name, type, options] of FORMATS) {
    it(`${name}: a part removed under the render fails that render, never the process`, async () => {
      const { deps, task, storage } = await staged(type, `tsk_gone_${name.replace('.', '_')}`, 40, 10, { ...options, max_file_rows: 10 });
      // From the second page on, once a part is written, the parts are removed (an operator's
      // clean-up, a tmp dir wiped): the zip of the parts cannot read it.
      let pages = 0;
      let removed = false;
      // Parquet reads the staged pieces twice (types, then rows): its parts exist only in the
      // second pass, so the removal waits for a written part.
      const removePart = () => {
        if (removed || ++pages < 2) return;
        const files = leftFiles(task.id);
        for (const f of files) rmSync(join(dataDir, 'tmp', f), { force: true });
        removed = files.length > 0;
      };
      const err = await renderTask(deps, job(task, removePart)).catch((e: unknown) => e);
      expect(removed).toBe(true);
      expect(err).toMatchObject({ code: 'ENOENT' });
      expect(toActivityFailure(err)).toMatchObject({ type: 'internal_error' });
      expect(await storage.list(keys.output(task.id, ''))).toEqual([]);
      expect(leftFiles(task.id)).toEqual([]);
      expect(unheard).toEqual([]);
    });
  }

  it('xlsx: a broken staged line in the middle of a sheet fails the render storage_failed, never the process', async () => {
    const { deps, task, storage } = await staged('excel', 'tsk_xlsx_broken', 30, 10, {});
    await storage.putBuffer(keys.piece(task.id, 1, 2, 'ndjson'), Buffer.from('{"id":11,"name":"x"}\n{"id":12,\n'));
    const err = await renderTask(deps, job(task)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'storage_failed' });
    // The aborted worksheet's stream must not raise an error of its own once the test has moved on.
    await new Promise((r) => setTimeout(r, 50));
    expect(unheard).toEqual([]);
    expect(leftFiles(task.id)).toEqual([]);
  });
});
