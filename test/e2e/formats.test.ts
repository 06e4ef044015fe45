// JSON Lines, Parquet and compressed files, exported through the real service and read back by
// outside readers: DuckDB and pyarrow (test/support/pyreaders.ts), `gzip -t` and `zstd -t`. Every
// value is compared with what the source sent, types included.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { readOutside, type Tagged, unzstd } from '../support/pyreaders.js';
import { sourcePool } from '../support/source-server.js';
import { fetchListed, zipEntries } from '../support/xlsx.js';

const exec = promisify(execFile);
let env: TestEnv;
let key: string;
let dir: string;
const { source, closeSources } = sourcePool();

/** Every kind of value a source sends: integers, fractions, text that needs care, dates, nesting, gaps. */
const row = (i: number) => ({
  id: i + 1,
  amount: i % 7 === 0 ? null : Math.round(i * 12.345 * 100) / 100,
  name: `第 ${i + 1} 行, "quoted"\n${i % 3 === 0 ? '=1+1' : 'plain'}`,
  day: `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
  at: `2026-11-24 ${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:07`,
  paid: i % 2 === 0,
  meta: { n: i, tags: ['a', `b${i}`] },
});
const TOTAL = 1200;
const expected = Array.from({ length: TOTAL }, (_, i) => row(i));
const template = [
  { name: 'id', title: '编号', type: 'integer' },
  { name: 'amount', title: '金额', type: 'money' },
  { name: 'name', title: '名称' },
  { name: 'day', title: '日期', type: 'date' },
  { name: 'at', title: '时间', type: 'datetime' },
  { name: 'paid', title: '已付' },
  { name: 'meta', title: '其他' },
];

beforeAll(async () => {
  env = await startTestEnv();
  ({ api_key: key } = await env.createProject({ source_hosts: ['127.0.0.1'] }));
  dir = await mkdtemp(join(tmpdir(), 'dc-formats-'));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type File = { name: string; rows: number; bytes: number; sha256: string; url: string };

async function exportOf(body: Record<string, unknown>): Promise<File[]> {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', page_size: 500, ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const task = await env.waitForTask(res.json.task_id, key, undefined, 120_000);
  expect(task.error).toBeNull();
  expect(task.compression).toBe(body.compression ?? null);
  return task.files;
}

/** The file (or each part of a split one, checked against its zip) saved locally. */
async function saved(files: File[]): Promise<string[]> {
  const parts = files.length === 1 ? files : files.slice(0, -1);
  const bodies = await Promise.all(parts.map(fetchListed));
  if (files.length > 1) {
    const entries = await zipEntries(await fetchListed(files[files.length - 1]!));
    expect([...entries.keys()]).toEqual(parts.map((p) => p.name));
    bodies.forEach((b, i) => expect(entries.get(parts[i]!.name)!.equals(b)).toBe(true));
  }
  return Promise.all(parts.map(async (p, i) => {
    const path = join(dir, `${Math.random().toString(36).slice(2)}-${p.name}`);
    await writeFile(path, bodies[i]!);
    return path;
  }));
}

const values = (rows: Tagged[][]) => rows.map((r) => r.map(([, v]) => v));

describe('JSON Lines', () => {
  it('writes one object per line in column order, values as the source sent them; DuckDB and pyarrow read it', async () => {
    const src = await source({ total: TOTAL, row });
    const [path] = await saved(await exportOf({ type: 'jsonl', source_url: src.url, file_name: 'rows' }));
    expect(path).toMatch(/rows\.jsonl$/);
    const text = (await import('node:fs')).readFileSync(path!, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text).not.toContain('\r');
    const lines = text.slice(0, -1).split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(expected);
    expect(Object.keys(JSON.parse(lines[0]!))).toEqual(Object.keys(row(0)));
    const { duckdb, pyarrow } = await readOutside('jsonl', path!);
    for (const view of [duckdb, pyarrow]) {
      expect(view.rows).toHaveLength(TOTAL);
      expect(view.rows.map((r) => r[0])).toEqual(expected.map((e) => ['int', e.id]));
      expect(view.rows.map((r) => r[2]![1])).toEqual(expected.map((e) => e.name));
      expect(view.rows.map((r) => r[5])).toEqual(expected.map((e) => ['bool', e.paid]));
    }
  });

  it('keeps the template\'s column order and writes a missing value as null', async () => {
    const src = await source({ total: 3, row: (i) => ({ b: i, a: `x${i}`, ...(i === 1 ? {} : { c: 1.5 }) }) });
    const [path] = await saved(await exportOf({ type: 'jsonl', source_url: src.url, template: [{ name: 'c' }, { name: 'a' }, { name: 'b' }] }));
    const text = (await import('node:fs')).readFileSync(path!, 'utf8');
    expect(text).toBe('{"c":1.5,"a":"x0","b":0}\n{"c":null,"a":"x1","b":1}\n{"c":1.5,"a":"x2","b":2}\n');
  });
});

describe('compression', () => {
  // gzip by the gzip command, zstd by PyPI's zstandard (test/support/zstd_frames.py): each refuses a
  // cut or corrupt file, as `gzip -t` and `zstd -t` do.
  const unpackers = {
    gzip: async (p: string) => (await exec('gzip', ['-dc', p], { encoding: 'buffer', maxBuffer: 64 << 20 })).stdout as Buffer,
    zstd: async (p: string) => unzstd(p),
  };
  for (const [compression, ext] of [['gzip', 'gz'], ['zstd', 'zst']] as const) {
    it(`${compression}: jsonl and csv files decompress whole and read back as the plain export`, async () => {
      const src = await source({ total: TOTAL, row });
      const [jsonl] = await saved(await exportOf({ type: 'jsonl', compression, source_url: src.url, file_name: 'packed' }));
      const [csv] = await saved(await exportOf({ type: 'csv', compression, source_url: src.url, file_name: 'packed' }));
      const [plainCsv] = await saved(await exportOf({ type: 'csv', source_url: src.url, file_name: 'plain' }));
      expect(jsonl).toMatch(new RegExp(`packed\\.jsonl\\.${ext}$`));
      expect(csv).toMatch(new RegExp(`packed\\.csv\\.${ext}$`));
      const unpack = unpackers[compression];
      expect((await unpack(csv!)).equals((await import('node:fs')).readFileSync(plainCsv!))).toBe(true);
      expect((await unpack(jsonl!)).toString('utf8').trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(expected);
      const { duckdb, pyarrow } = await readOutside('jsonl', jsonl!);
      for (const view of [duckdb, pyarrow]) expect(view.rows.map((r) => r[0]![1])).toEqual(expected.map((e) => e.id));
      expect(values((await readOutside('csv', csv!)).duckdb.rows).map((r) => r[0])).toEqual(expected.map((e) => e.id));
    });
  }

  it('refuses compression for parquet and excel with its own code', async () => {
    for (const type of ['parquet', 'excel', 'xlsx']) {
      const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', source_url: 'http://127.0.0.1:9/x', type, compression: 'gzip' } });
      expect(res.status).toBe(422);
      expect(res.json.error).toMatchObject({ code: 'compression_unsupported', details: [{ field: 'compression' }] });
    }
    const bad = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', source_url: 'http://127.0.0.1:9/x', type: 'csv', compression: 'brotli' } });
    expect(bad.status).toBe(422);
    expect(bad.json.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'compression' }] });
  });
});

describe('Parquet', () => {
  const check = (view: { types: Record<string, string>; rows: Tagged[][] }) => {
    expect(view.rows).toHaveLength(TOTAL);
    view.rows.forEach((r, i) => {
      const e = expected[i]!;
      expect(r[0]).toEqual(['int', e.id]);
      expect(r[1]).toEqual(e.amount === null ? ['none', null] : ['float', e.amount]);
      expect(r[2]).toEqual(['str', e.name]);
      expect(r[3]).toEqual(['date', e.day]);
      expect(r[4]).toEqual(['datetime', e.at]);
      expect(r[5]).toEqual(['bool', e.paid]);
      // Nested values are JSON text (DuckDB shows its JSON type as text too).
      expect(JSON.parse(r[6]![1] as string)).toEqual(e.meta);
    });
  };

  it('types the columns from the template; DuckDB and pyarrow read every value back with its type', async () => {
    const src = await source({ total: TOTAL, row });
    const [path] = await saved(await exportOf({ type: 'parquet', source_url: src.url, template, file_name: 'typed' }));
    expect(path).toMatch(/typed\.parquet$/);
    const { duckdb, pyarrow } = await readOutside('parquet', path!);
    expect(pyarrow.types).toMatchObject({ id: 'int64', amount: 'double', name: 'string', day: 'date32[day]', at: 'timestamp[ms]', paid: 'bool' });
    expect(duckdb.types).toMatchObject({ id: 'BIGINT', amount: 'DOUBLE', name: 'VARCHAR', day: 'DATE', at: 'TIMESTAMP', paid: 'BOOLEAN' });
    check(duckdb);
    check(pyarrow);
  });

  it('infers the types from all the rows without a template', async () => {
    const src = await source({ total: TOTAL, row });
    const [path] = await saved(await exportOf({ type: 'parquet', source_url: src.url }));
    const { duckdb, pyarrow } = await readOutside('parquet', path!);
    expect(pyarrow.types).toMatchObject({ id: 'int64', amount: 'double', day: 'date32[day]', at: 'timestamp[ms]', paid: 'bool' });
    check(duckdb);
    check(pyarrow);
  });

  it('makes a column text when a later page brings text to its numbers, and keeps every value', async () => {
    const src = await source({ total: 800, row: (i) => ({ id: i < 600 ? i : `n/a-${i}` }) });
    const [path] = await saved(await exportOf({ type: 'parquet', source_url: src.url }));
    const { duckdb, pyarrow } = await readOutside('parquet', path!);
    expect([pyarrow.types, duckdb.types]).toEqual([{ id: 'string' }, { id: 'VARCHAR' }]);
    const ids = Array.from({ length: 800 }, (_, i) => [['str', i < 600 ? String(i) : `n/a-${i}`]]);
    expect(pyarrow.rows).toEqual(ids);
    expect(duckdb.rows).toEqual(ids);
  });

  it('fails the task with a sentence when a later value does not fit the template\'s type', async () => {
    const src = await source({ total: 800, row: (i) => ({ id: i < 600 ? i : `n/a-${i}` }) });
    const template = [{ name: 'id', title: 'id', type: 'integer' }];
    const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', type: 'parquet', source_url: src.url, page_size: 500, template } });
    const task = await env.waitForTask(res.json.task_id, key, (t) => t.status === 'failed', 120_000);
    expect(task.error).toMatchObject({ code: 'render_failed', message: expect.stringContaining('row 601, column "id": "n/a-600" is not an integer') });
  });
});

describe('splitting applies to every type', () => {
  for (const [type, extra, kind] of [
    ['jsonl', {}, 'jsonl'],
    ['jsonl', { compression: 'zstd' }, 'jsonl'],
    ['csv', { compression: 'gzip' }, 'csv'],
    ['parquet', { template }, 'parquet'],
  ] as const) {
    it(`${type} ${JSON.stringify(extra).slice(0, 30)}: parts of at most 500 rows, all rows once, in order`, async () => {
      const src = await source({ total: TOTAL, row });
      const files = await exportOf({ type, source_url: src.url, max_file_rows: 500, file_name: 'cut', ...extra });
      expect(files.map((f) => f.rows)).toEqual([500, 500, 200, TOTAL]);
      expect(files.at(-1)!.name).toBe('cut.zip');
      const ids: unknown[] = [];
      for (const p of await saved(files)) ids.push(...(await readOutside(kind, p)).duckdb.rows.map((r) => r[0]![1]));
      expect(ids).toEqual(expected.map((e) => e.id));
    });
  }
});

describe('an empty source', () => {
  it('gives an empty JSON Lines file, and a Parquet file of no rows with the template\'s typed columns', async () => {
    const src = await source({ total: 0 });
    const [jsonl] = await saved(await exportOf({ type: 'jsonl', source_url: src.url }));
    expect((await import('node:fs')).readFileSync(jsonl!).length).toBe(0);
    const [parquet] = await saved(await exportOf({ type: 'parquet', source_url: src.url, template }));
    const { duckdb, pyarrow } = await readOutside('parquet', parquet!);
    expect([duckdb.rows, pyarrow.rows]).toEqual([[], []]);
    expect(duckdb.types).toMatchObject({ id: 'BIGINT', day: 'DATE', at: 'TIMESTAMP' });
  });
});

describe('preview and sync exports know the new types', () => {
  it('previews jsonl and parquet, and answers a sync export with the file', async () => {
    const src = await source({ total: 300, row });
    const post = (path: string, body: Record<string, unknown>) =>
      fetch(`${env.base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ operator_id: 'op-1', source_url: src.url, page_size: 100, ...body }) });
    const pj = await post('/v1/tasks/preview', { type: 'jsonl', rows: 5 });
    expect(pj.status).toBe(200);
    expect((await pj.text()).trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(expected.slice(0, 5));
    const pp = await post('/v1/tasks/preview', { type: 'parquet', rows: 5, template });
    expect(pp.status).toBe(200);
    const pqPath = join(dir, 'preview.parquet');
    await writeFile(pqPath, Buffer.from(await pp.arrayBuffer()));
    expect((await readOutside('parquet', pqPath)).pyarrow.rows.map((r) => r[3])).toEqual(expected.slice(0, 5).map((e) => ['date', e.day]));
    const sync = await post('/v1/tasks/sync', { type: 'jsonl', compression: 'gzip', file_name: 'now' });
    expect(sync.status).toBe(200);
    expect(sync.headers.get('content-type')).toBe('application/gzip');
    expect(sync.headers.get('content-disposition')).toContain('now.jsonl.gz');
    const lines = gunzipSync(Buffer.from(await sync.arrayBuffer())).toString('utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(expected.slice(0, 300));
  });
});
