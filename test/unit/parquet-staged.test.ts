// A Parquet export's staged values (domain/formats/parquet/staged.ts, ADR 0056) against what they
// replace: the page transcoder's bytes against the same values encoded from JSON.parse's rows, the
// reader's values against JSON.parse's, and the render fed staged values against the render fed
// the JSON lines staged before them: the same file, byte for byte, or the same error.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parquetMetadata, parquetRead } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TaskRow } from '../../db/schema.js';
import type { Column } from '../../domain/formats/columns.js';
import { momentAt, readMoment } from '../../domain/formats/parquet/dates.js';
import * as V from '../../domain/formats/parquet/scan.js';
import { encodeGroups, readGroups, taken, valuesOf } from '../../domain/formats/parquet/groups.js';
import { encodeValues, stagedKeys, ValuesReader } from '../../domain/formats/parquet/staged.js';
import { ValuesTranscoder } from '../../domain/formats/parquet/transcode.js';
import { ownValue } from '../../domain/formats/own.js';
import { keys } from '../../domain/staging/keys.js';
import { writeMeta } from '../../domain/staging/meta.js';
import { encodeStaged } from '../../domain/staging/pieces.js';
import { renderParquet } from '../../domain/staging/render-parquet.js';
import type { StoredSettings } from '../../model/project-settings.js';
import { MemoryStorage } from '../../platform/storage/memory.js';
import { generatedPages, mutatedPages } from '../support/json-pages.js';
import { jsonRow, KEYS, same } from '../support/json-rows.js';

const cols = (...ks: string[]): Column[] => ks.map((key) => ({ key, title: key }));

describe('the page transcoder to staged values', () => {
  function check(source: string, columns: Column[]): boolean {
    const bytes = Buffer.from(source, 'utf8');
    const fast = new ValuesTranscoder(columns).transcode(bytes);
    let json: { total?: unknown; data?: unknown };
    try {
      json = JSON.parse(bytes.toString('utf8')) as typeof json;
    } catch {
      expect(fast, source).toBeNull();
      return false;
    }
    if (fast === null) return false;
    expect(Array.isArray(json.data) && json.data.every((d) => typeof d === 'object' && d !== null && !Array.isArray(d)), source).toBe(true);
    expect(fast.values.toString('hex'), source).toBe(encodeValues(json.data as unknown[], stagedKeys(columns)).toString('hex'));
    expect(fast.rows).toBe((json.data as unknown[]).length);
    expect(fast.total).toBe(json.total);
    return true;
  }

  it('writes the same bytes as the values of JSON.parse rows on generated pages, and takes most of them', () => {
    const taken = generatedPages((text, ks) => check(text, cols(...ks)));
    expect(taken).toBeGreaterThan(3000 * 0.5);
  });

  it('never takes a page JSON.parse refuses, nor one changed by a byte (then it matches or gives up)', () => {
    for (const text of mutatedPages()) check(text, cols('id', 'name', 'amount'));
  });

  it('reads numbers, escapes, moments and nested values of a page as JSON.parse does', () => {
    const text =
      '{"total":2,"data":[{"id":1,"n":-0,"t":"2026-11-03T08:30:00.25+08:00","e":"say \\"hi\\"\\/\\n","u":"\\u5ba2\\u6237","l":"\\ud800","o":{ "a" : [1, 2.50] },"b":true},' +
      '{"id":12345678901234567890,"n":1.50,"t":"2026-02-30","e":null,"u":"9999-12-31","o":[],"b":false,"x":1}]}';
    const columns = cols('id', 'n', 't', 'e', 'u', 'l', 'o', 'b', 'gone');
    expect(check(text, columns)).toBe(true);
  });
});


const row = jsonRow({ loneSurrogates: true });

describe('the staged values reader', () => {
  it("reads every column's value as JSON.parse does, and its moment as momentAt does", () => {
    const ks = stagedKeys(cols(...KEYS));
    fc.assert(
      fc.property(fc.array(row, { maxLength: 8 }), (rows) => {
        const parsed = JSON.parse(JSON.stringify(rows)) as Record<string, unknown>[];
        const reader = new ValuesReader(ks.length);
        const bytes = encodeValues(parsed, ks);
        reader.open(Buffer.concat([bytes, bytes]));
        for (const r of [...parsed, ...parsed]) {
          expect(reader.next()).toBe(true);
          ks.forEach((k, c) => {
            const want = ownValue(r, k);
            expect(same(reader.decoded(c), want), `${k}: ${JSON.stringify(want)}`).toBe(true);
            if (typeof want === 'string' && reader.kinds[c] === V.TEXT) {
              const b = Buffer.from(want, 'utf8');
              const found = momentAt(b, 0, b.length);
              const m = { ...readMoment };
              expect(reader.momentOf(c)).toBe(found);
              if (found) expect({ ...readMoment }).toEqual(m);
            }
          });
        }
        expect(reader.next()).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the render fed staged values', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-pq-staged-'));
  // Pieces of a few rows here: their groups are taken all the same (a lane's are taken from 8,192 rows).
  const minRows = taken.minRows;
  beforeAll(() => (taken.minRows = 0));
  afterAll(() => {
    taken.minRows = minRows;
    rmSync(dataDir, { recursive: true, force: true });
  });
  const columns = cols(...KEYS, 'id');
  const typed: Column[] = [{ key: 'id', title: 'id', type: 'integer' }, { key: 'when', title: 'when', type: 'datetime' }, { key: 'amount', title: 'amount', type: 'number' }, ...cols(...KEYS.slice(3))];
  let n = 0;

  type Ext = 'pqv' | 'ndjson' | 'groups';

  /**
   * The parts (their bytes) or the error's sentence, the rows staged in pieces of `ext`s (pages of
   * 3, two a piece; `groups`: staged values with the row groups a lane encodes).
   */
  async function files(columns: Column[], rows: unknown[], exts: (piece: number) => Ext, maxRows: number): Promise<Buffer[] | string> {
    const storage = new MemoryStorage();
    const taskId = `tsk_staged_${++n}`;
    await writeMeta(storage, taskId, { total: rows.length, pageSize: 3, columns });
    for (let p = 0, k = 0; p * 3 < rows.length; p += 2, k++) {
      const ext = exts(k);
      const staged = encodeStaged(ext === 'groups' ? 'pqv' : ext, rows.slice(p * 3, (p + 2) * 3), columns);
      await storage.putBuffer(keys.piece(taskId, p, Math.min(p + 2, Math.ceil(rows.length / 3)), ext === 'groups' ? 'pqv' : ext), ext === 'groups' ? Buffer.concat(encodeGroups([staged], columns) ?? [staged]) : staged);
    }
    const task = { id: taskId, type: 'parquet', options: { max_file_rows: maxRows }, fileName: 'staged', createdAt: new Date('2026-12-01T00:00:00Z') } as unknown as TaskRow;
    try {
      const out = await renderParquet({ storage, dataDir }, { task, settings: {} as StoredSettings, signal: new AbortController().signal, onProgress: () => {} });
      return await Promise.all(out.filter((o) => o.name.endsWith('.parquet')).map((o) => storage.getBuffer(o.key)));
    } catch (err) {
      return `error: ${(err as Error).message}`;
    }
  }

  /** The file's sha256 (each part's) or the error's sentence. */
  async function render(columns: Column[], rows: unknown[], exts: (piece: number) => Ext, maxRows = 7): Promise<string> {
    const out = await files(columns, rows, exts, maxRows);
    return typeof out === 'string' ? out : out.map((b) => createHash('sha256').update(b).digest('hex')).join();
  }

  /** Each part's schema and rows as hyparquet reads them (the row groups may differ, not the values), or the error. */
  async function read(columns: Column[], rows: unknown[], exts: (piece: number) => Ext, maxRows = 7): Promise<string> {
    const out = await files(columns, rows, exts, maxRows);
    if (typeof out === 'string') return out;
    const parts = await Promise.all(
      out.map(async (b) => {
        const file = b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer;
        const meta = parquetMetadata(file);
        // Rows as arrays: a column named __proto__ would set an object's prototype.
        let rows: unknown[][] = [];
        await parquetRead({ file, rowFormat: 'array', onComplete: (r: unknown[][]) => (rows = r) });
        return { schema: meta.schema, rows };
      }),
    );
    return JSON.stringify(parts, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : v instanceof Date ? v.toISOString() : v));
  }

  it('writes the same files, byte for byte, as from the JSON lines (or fails with the same sentence), mixed pieces too', async () => {
    let files = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 24 }), fc.boolean(), fc.integer({ min: 0, max: 3 }), async (generated, withTypes, mix) => {
        const rows = JSON.parse(JSON.stringify(generated)) as unknown[];
        const c = withTypes ? typed : columns;
        const lines = await render(c, rows, () => 'ndjson');
        if (!lines.startsWith('error')) files++;
        expect(await render(c, rows, () => 'pqv')).toBe(lines);
        // A resumed export: pieces staged before the upgrade beside those staged after.
        expect(await render(c, rows, (k) => ((k + mix) % 2 ? 'pqv' : 'ndjson'))).toBe(lines);
      }),
      { numRuns: 120 },
    );
    // Most of them files, not the same error twice.
    expect(files).toBeGreaterThan(60);
  });

  it("writes a lane's row groups as they are, and the same values as from the values alone (a part's row limit, a late type, a misfit)", async () => {
    let used = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 30 }), fc.boolean(), fc.integer({ min: 0, max: 3 }), fc.constantFrom(4, 7, 100), async (generated, withTypes, mix, maxRows) => {
        const rows = JSON.parse(JSON.stringify(generated)) as unknown[];
        const c = withTypes ? typed : columns;
        const alone = await read(c, rows, () => 'pqv', maxRows);
        expect(await read(c, rows, () => 'groups', maxRows)).toBe(alone);
        expect(await read(c, rows, (k) => ((k + mix) % 3 === 0 ? 'groups' : (k + mix) % 3 === 1 ? 'pqv' : 'ndjson'), maxRows)).toBe(alone);
        if ((await render(c, rows, () => 'groups', maxRows)) !== (await render(c, rows, () => 'pqv', maxRows))) used++;
      }),
      { numRuns: 120 },
    );
    // Random rows rarely keep one kind per column from piece to piece; some did, and their groups were taken.
    expect(used).toBeGreaterThan(0);
  });

  it("takes every piece's row groups when the kinds hold, and only stitches them (offsets rebased, one footer)", async () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: i, amount: i + 0.5, when: `2026-12-01T10:${String(i).padStart(2, '0')}:00Z`, n: `n${i % 3}`, gone: null }));
    const c = cols('id', 'amount', 'when', 'n', 'gone');
    // Only the pieces' first bytes are read (their groups), never a whole piece.
    const whole = vi.spyOn(MemoryStorage.prototype, 'getBuffer');
    const [grouped] = (await files(c, rows, () => 'groups', 1e9)) as Buffer[];
    expect(whole.mock.calls.filter(([key]) => key.endsWith('.pqv'))).toEqual([]);
    whole.mockRestore();
    const [alone] = (await files(c, rows, () => 'pqv', 1e9)) as Buffer[];
    const toFile = (b: Buffer) => b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer;
    // A group per piece (6 rows each) against one group of all the rows.
    expect(parquetMetadata(toFile(grouped!)).row_groups.map((g) => Number(g.num_rows))).toEqual([6, 6, 6, 6, 6, 6, 4]);
    expect(parquetMetadata(toFile(alone!)).row_groups).toHaveLength(1);
    expect(await read(c, rows, () => 'groups', 1e9)).toBe(await read(c, rows, () => 'ndjson', 1e9));
  });

  it('keeps a piece without groups, or with broken ones, to its values', () => {
    const v = encodeStaged('pqv', [{ id: 1 }, { id: 2.5 }], cols('id'));
    expect(readGroups(v)).toBe('values');
    expect(valuesOf(v)).toBe(v);
    const g = Buffer.concat(encodeGroups([v.subarray(0, 0), v], cols('id'))!);
    expect(valuesOf(g)!.equals(v)).toBe(true);
    const found = readGroups(g);
    expect(found).toMatchObject({ groups: { kinds: ['double'], rows: 2 } });
    expect([...(found as { bits: Uint8Array }).bits]).toEqual([3]);
    // Only its first bytes: the groups are there without the values; fewer, and the whole piece is wanted.
    const groupsEnd = 9 + g.readUInt32LE(1) + g.readUInt32LE(5);
    expect(readGroups(g.subarray(0, groupsEnd))).toMatchObject({ groups: { rows: 2 } });
    expect(readGroups(g.subarray(0, groupsEnd - 1))).toBe('more');
    expect(readGroups(Buffer.concat([g.subarray(0, 9), Buffer.from('{')]))).toBe('more');
    const bad = Buffer.from(g);
    bad.write('x', 9);
    expect(readGroups(bad)).toBeNull();
    // A template type's misfit: no groups (the render names the row).
    expect(encodeGroups([encodeStaged('pqv', [{ id: 'n/a' }], cols('id'))], [{ key: 'id', title: 'id', type: 'integer' }])).toBeNull();
  });

  it('writes the same file for a late decimal, a column null until late, a late text and a late misfit', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => ({ id: i === 50 ? 'n/a' : i, amount: i === 41 ? 1.5 : i, when: i < 30 ? null : '2026-12-01 10:00:00', n: i < 55 ? i : `x${i}` }));
    for (const c of [columns, typed]) {
      const lines = await render(c, rows, () => 'ndjson', 1e9);
      expect(await render(c, rows, () => 'pqv', 1e9)).toBe(lines);
      expect(await read(c, rows, () => 'groups', 1e9)).toBe(await read(c, rows, () => 'ndjson', 1e9));
    }
    for (const ext of ['pqv', 'groups'] as const) expect(await render(typed, rows, () => ext, 1e9)).toMatch(/^error: row 51, column "id": "n\/a" is not an integer/);
  });

  it("gathers the rows of pieces whose groups are small into groups of its own (a slow source's pieces)", async () => {
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: i, n: `n${i % 3}` }));
    taken.minRows = 7;
    try {
      const [file] = (await files(cols('id', 'n'), rows, () => 'groups', 1e9)) as Buffer[];
      expect(parquetMetadata(file!.buffer.slice(file!.byteOffset, file!.byteOffset + file!.length) as ArrayBuffer).row_groups.map((g) => Number(g.num_rows))).toEqual([40]);
    } finally {
      taken.minRows = 0;
    }
  });

  it('refuses a broken piece of staged values as storage_failed', async () => {
    const storage = new MemoryStorage();
    await writeMeta(storage, 'tsk_broken', { total: 3, pageSize: 3, columns: cols('id') });
    const good = encodeStaged('pqv', [{ id: 1 }, { id: 2 }, { id: 3 }], cols('id'));
    const task = { id: 'tsk_broken', type: 'parquet', options: {}, fileName: 'x', createdAt: new Date() } as unknown as TaskRow;
    const job = { task, settings: {} as StoredSettings, signal: new AbortController().signal, onProgress: () => {} };
    for (const [body, why] of [
      [good.subarray(0, good.length - 3), /is not valid staged values/],
      [Buffer.concat([good, Buffer.from([1])]), /is not valid staged values/],
      [encodeStaged('pqv', [{ id: 1 }], cols('id')), /holds 1 rows where 3 were fetched/],
    ] as const) {
      await storage.putBuffer(keys.piece('tsk_broken', 0, 1, 'pqv'), body);
      await expect(renderParquet({ storage, dataDir }, job)).rejects.toMatchObject({ code: 'storage_failed', message: expect.stringMatching(why) });
    }
  });
});
