import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startWithProject, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';
import { fetchListed, readSheet, rowValues, sha256, zipEntries } from '../support/xlsx.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

async function run(apiKey: string, body: Record<string, unknown>) {
  const res = await env.api('POST', '/v1/tasks', { token: apiKey, body: { operator_id: 'op-1', ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const task = await env.waitForTask(res.json.task_id, apiKey, undefined, 120_000);
  expect(task.error).toBeNull();
  return task;
}

/** Rows that compress poorly, so some thousands make several 1 MiB parts (the smallest limit allowed). */
const noisy = (i: number) => ({ id: i + 1, hash: createHash('md5').update(String(i)).digest('hex'), text: `第 ${i + 1} 行\n"quoted", ${createHash('sha512').update(`x${i}`).digest('base64')}` });
const MiB = 1024 * 1024;
const template = [{ name: 'id', title: '编号', type: 'integer' }, { title: '内容', children: [{ name: 'hash', title: '摘要' }, { name: 'text', title: '文本' }] }];

beforeAll(async () => ({ env, key } = await startWithProject({}, { source_hosts: ['127.0.0.1'] })));

afterAll(async () => {
  await closeSources();
  await env?.close();
});

type File = { name: string; rows: number; bytes: number; sha256: string; url: string };

/** The zip lists exactly the parts, byte for byte. */
async function checkZip(files: File[]): Promise<Buffer[]> {
  const parts = files.slice(0, -1);
  const zip = files[files.length - 1]!;
  expect(zip.rows).toBe(parts.reduce((s, p) => s + p.rows, 0));
  const entries = await zipEntries(await fetchListed(zip));
  expect([...entries.keys()]).toEqual(parts.map((p) => p.name));
  const bodies = await Promise.all(parts.map(fetchListed));
  bodies.forEach((b, i) => expect(sha256(entries.get(parts[i]!.name)!)).toBe(sha256(b)));
  return bodies;
}

describe('splitting big exports into parts plus a zip', () => {
  it('splits an Excel export by compressed size; every part is complete and within the limit', async () => {
    const src = await source({ total: 16_000, row: noisy });
    const limit = MiB;
    const task = await run(key, { type: 'excel', source_url: src.url, template, title: '大表', header: { 日期: '2026-11-03' }, file_name: 'big', page_size: 1000, max_file_bytes: limit });
    const files: File[] = task.files;
    expect(files.length).toBeGreaterThanOrEqual(4);
    expect(files.length).toBeLessThanOrEqual(6);
    expect(files.map((f) => f.name)).toEqual([...files.slice(0, -1).map((_, i) => `big-part-${i + 1}.xlsx`), 'big.zip']);
    const bodies = await checkZip(files);
    let next = 1;
    for (const [i, body] of bodies.entries()) {
      const f = files[i]!;
      expect(f.bytes).toBeLessThanOrEqual(limit);
      if (i < bodies.length - 1) expect(f.bytes).toBeGreaterThan(limit * 0.7);
      const ws = await readSheet(body);
      expect(rowValues(ws, 1)[0]).toBe('大表');
      expect(rowValues(ws, 2)).toEqual(['日期', '2026-11-03', '2026-11-03']);
      expect(rowValues(ws, 3)).toEqual(['编号', '内容', '内容']);
      expect(rowValues(ws, 4)).toEqual(['编号', '摘要', '文本']);
      expect(ws.rowCount).toBe(4 + f.rows);
      // rows continue across parts, none lost or repeated
      expect(rowValues(ws, 5)).toEqual([next, noisy(next - 1).hash, noisy(next - 1).text]);
      expect(ws.getCell(`A${4 + f.rows}`).value).toBe(next + f.rows - 1);
      next += f.rows;
    }
    expect(next - 1).toBe(16_000);
  });

  it('splits by rows with the project setting, and a task limit overrides it', async () => {
    const { api_key, ...project } = await env.createProject({ source_hosts: ['127.0.0.1'], excel_max_file_rows: 250 });
    expect(project).toMatchObject({ excel_max_file_rows: 250, excel_max_file_bytes: 10 * MiB, csv_max_file_rows: null, csv_max_file_bytes: 512 * MiB });
    const src = await source({ total: 600, row: (i) => ({ n: i }) });
    const byProject = await run(api_key, { type: 'excel', source_url: src.url, file_name: 'p', page_size: 100 });
    expect(byProject.files.map((f: File) => [f.name, f.rows])).toEqual([['p-part-1.xlsx', 250], ['p-part-2.xlsx', 250], ['p-part-3.xlsx', 100], ['p.zip', 600]]);
    const third = await readSheet((await checkZip(byProject.files))[2]!);
    expect(rowValues(third, 2)).toEqual([500]);
    const byTask = await run(api_key, { type: 'excel', source_url: src.url, file_name: 't', page_size: 100, max_file_rows: 400 });
    expect(byTask.files.map((f: File) => f.rows)).toEqual([400, 200, 600]);
  });

  it('splits a CSV export over its size limit at record boundaries, each part with its header', async () => {
    const src = await source({ total: 12_000, row: noisy });
    const limit = MiB;
    const task = await run(key, { source_url: src.url, file_name: 'rows', page_size: 1000, max_file_bytes: limit });
    const files: File[] = task.files;
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(files[files.length - 1]!.name).toBe('rows.zip');
    // cut inside a page (pages are 1000 rows), at a record boundary
    expect(files[0]!.rows % 1000).not.toBe(0);
    const bodies = await checkZip(files);
    const all: Record<string, string>[] = [];
    bodies.forEach((b, i) => {
      expect(b.length).toBeLessThanOrEqual(limit);
      if (i < bodies.length - 2) expect(b.length).toBeGreaterThan(limit - 1000);
      expect(b.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      const records = parse(b.toString('utf8').slice(1), { columns: true }) as Record<string, string>[];
      expect(records).toHaveLength(files[i]!.rows);
      all.push(...records);
    });
    expect(all).toHaveLength(12_000);
    all.forEach((r, i) => expect(r).toEqual({ id: String(i + 1), hash: noisy(i).hash, text: noisy(i).text }));
  });

  it('refuses out-of-range project limits', async () => {
    for (const [field, value] of [['excel_max_file_rows', 2_000_000], ['csv_max_file_bytes', 100_000], ['excel_max_file_bytes', 1.5]] as const) {
      const res = await env.api('POST', '/v1/projects', { token: ADMIN, body: { name: 'x', source_hosts: ['127.0.0.1'], [field]: value } });
      expect(res.status).toBe(422);
      expect(res.json.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    }
  });
});
