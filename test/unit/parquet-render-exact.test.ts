// Staged pages through the real Parquet render (domain/staging/render-parquet.ts), the file read
// back by pyarrow and DuckDB (test/support/pyreaders.ts) and compared value by value with what
// the source sent: types from every page (a late decimal, a column null until late, mixed kinds),
// prototype-named keys absent from the rows, the years 0001 and 9999, a NUL in a column name; and a
// template type's misfit on a late page failing render_failed, naming row and column, no file left.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskRow } from '../../db/schema.js';
import type { StoredSettings } from '../../model/project-settings.js';
import { MemoryStorage } from '../../platform/storage/memory.js';
import type { Column } from '../../domain/formats/columns.js';
import { keys } from '../../domain/staging/keys.js';
import { writeMeta } from '../../domain/staging/meta.js';
import { encodeStaged } from '../../domain/staging/pieces.js';
import { renderParquet } from '../../domain/staging/render-parquet.js';
import { readOutside, type Tagged } from '../support/pyreaders.js';

const dataDir = mkdtempSync(join(tmpdir(), 'dc-parquet-exact-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const PAGE = 10;
const PAGES = 13;
const PROTO = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'];
const NUL = 'a\u0000b';

/**
 * Renders `rows` staged as pages of 10, two pages a piece, as a fetch stores them (staged values,
 * ADR 0056; the JSON lines staged before them by `ext: 'ndjson'`); the file read back.
 */
async function rendered(taskId: string, columns: Column[], rows: Record<string, unknown>[], ext: 'pqv' | 'ndjson' = 'pqv') {
  const storage = new MemoryStorage();
  await writeMeta(storage, taskId, { total: rows.length, pageSize: PAGE, columns });
  for (let p = 0; p * PAGE < rows.length; p += 2) {
    await storage.putBuffer(keys.piece(taskId, p, Math.min(p + 2, Math.ceil(rows.length / PAGE)), ext), encodeStaged(ext, rows.slice(p * PAGE, (p + 2) * PAGE), columns));
  }
  const task = { id: taskId, type: 'parquet', options: {}, fileName: 'exact', createdAt: new Date('2026-11-24T00:00:00Z') } as unknown as TaskRow;
  const render = renderParquet({ storage, dataDir }, { task, settings: {} as StoredSettings, signal: new AbortController().signal, onProgress: () => {} });
  return { render, storage, task };
}

async function readBack(storage: MemoryStorage, key: string) {
  const path = join(dataDir, `${Math.random().toString(36).slice(2)}.parquet`);
  writeFileSync(path, await storage.getBuffer(key));
  return readOutside('parquet', path);
}

const at = (i: number) => i;
const row = (i: number): Record<string, unknown> => ({
  id: i + 1,
  // Integers for twelve pages, a decimal on the thirteenth.
  amount: i === 125 ? 1200.5 : i * 3,
  // Null until page 12.
  late: i < 110 ? null : i * 2,
  // A number, then text from page 5 on.
  mixed: i < 40 ? i : `x${i}`,
  flag: i % 3 === 0,
  day: ['0001-01-01', '9999-12-31', '0099-12-31', '1582-10-15', '1900-02-28'][i % 5],
  at: ['0001-01-01 00:00:00', '9999-12-31 23:59:59.999', '0099-06-15T12:30:00', '1970-01-01 00:00:00.001'][i % 4],
  [NUL]: at(i) * 10,
});
const columns = [...Object.keys(row(0)), ...PROTO].map((key) => ({ key, title: key }));

describe('the Parquet render, read back by pyarrow and DuckDB', () => {
  it('types every column from all the rows and keeps every value exactly', async () => {
    const rows = Array.from({ length: PAGE * PAGES }, (_, i) => row(i));
    const { render, storage } = await rendered('tsk_exact', columns, rows);
    const [out] = await render;
    const { pyarrow, duckdb } = await readBack(storage, out!.key);

    expect(pyarrow.types).toEqual({
      id: 'int64', amount: 'double', late: 'int64', mixed: 'string', flag: 'bool', day: 'date32[day]', at: 'timestamp[ms]', [NUL]: 'int64',
      ...Object.fromEntries(PROTO.map((k) => [k, 'string'])),
    });
    expect(duckdb.types).toMatchObject({ amount: 'DOUBLE', late: 'BIGINT', mixed: 'VARCHAR', day: 'DATE', at: 'TIMESTAMP', [NUL]: 'BIGINT' });
    const expected: Tagged[][] = rows.map((r) => [
      ['int', r.id],
      ['float', r.amount],
      r.late === null ? ['none', null] : ['int', r.late],
      ['str', String(r.mixed)],
      ['bool', r.flag],
      ['date', r.day],
      // Python's isoformat: no fraction when it is zero, microseconds otherwise.
      ['datetime', String(r.at).replace('T', ' ').replace(/\.(\d{3})$/, '.$1000')],
      ['int', r[NUL]],
      ...PROTO.map((): Tagged => ['none', null]),
    ]);
    for (const [reader, view] of [['pyarrow', pyarrow], ['duckdb', duckdb]] as const) {
      view.rows.forEach((got, i) => expect(got, `${reader} row ${i + 1}`).toEqual(expected[i]));
      expect(view.rows, reader).toHaveLength(rows.length);
    }
    // The same rows staged as JSON lines, as an export staged before ADR 0056 holds them: the same file.
    const before = await rendered('tsk_exact_lines', columns, rows, 'ndjson');
    const [old] = await before.render;
    expect((await before.storage.getBuffer(old!.key)).equals(await storage.getBuffer(out!.key))).toBe(true);
  });

  it('keeps an own key named like a prototype member, and writes null where a row lacks it', async () => {
    const rows = [JSON.parse('{"constructor":"own","__proto__":{"x":1},"toString":7}') as Record<string, unknown>, { id: 2 }];
    const cols = ['constructor', '__proto__', 'toString', 'hasOwnProperty'].map((key) => ({ key, title: key }));
    const { render, storage } = await rendered('tsk_proto', cols, rows);
    const [out] = await render;
    const { pyarrow, duckdb } = await readBack(storage, out!.key);
    // A nested value is JSON text (pyarrow shows its JSON extension type).
    expect(pyarrow.types).toEqual({ constructor: 'string', ['__proto__']: 'extension<arrow.json>', toString: 'int64', hasOwnProperty: 'string' });
    for (const view of [pyarrow, duckdb]) {
      expect(view.rows[0]!.slice(0, 1)).toEqual([['str', 'own']]);
      expect(JSON.parse(view.rows[0]![1]![1] as string)).toEqual({ x: 1 });
      expect(view.rows[0]!.slice(2)).toEqual([['int', 7], ['none', null]]);
      expect(view.rows[1]).toEqual([['none', null], ['none', null], ['none', null], ['none', null]]);
    }
  });

  it('fails a template type\'s misfit on a late page with render_failed naming row and column, before a file is begun', async () => {
    for (const [type, bad, word] of [['integer', 'n/a', 'an integer'], ['date', '2026-02-30', 'a real date'], ['datetime', '2026-11-24 10:75:00', 'a real date-time']] as const) {
      const typed = [{ key: 'id', title: 'id' }, { key: 'v', title: 'v', type }];
      const good = type === 'integer' ? 5 : type === 'date' ? '2026-11-24' : '2026-11-24 10:15:00';
      const rows = Array.from({ length: PAGE * PAGES }, (_, i) => ({ id: i + 1, v: i === 123 ? bad : good }));
      const taskId = `tsk_misfit_${type}`;
      const { render, storage } = await rendered(taskId, typed, rows);
      const err = await render.catch((e: unknown) => e);
      expect(err, type).toMatchObject({ code: 'render_failed', message: expect.stringContaining(`row 124, column "v": ${JSON.stringify(bad)} is not ${word}`) });
      expect(await storage.list(keys.output(taskId, ''))).toEqual([]);
      expect(existsSync(join(dataDir, 'tmp')) ? readdirSync(join(dataDir, 'tmp')).filter((f) => f.startsWith(taskId)) : []).toEqual([]);
    }
  });

  it('names a column holding a NUL escaped, so the failure\'s sentence can be stored', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => ({ [NUL]: i === 25 ? 'n/a' : i }));
    const { render } = await rendered('tsk_nul', [{ key: NUL, title: 'n', type: 'integer' }], rows);
    const err = (await render.catch((e: unknown) => e)) as Error;
    expect(err.message).toContain('row 26, column "a\\u0000b": "n/a" is not an integer');
    expect(err.message).not.toContain('\u0000');
  });
});
