// CSV dialects, the xlsx autofilter and time_zone through the API, end to end (docs/formats.md,
// docs/excel.md): the project's CSV defaults, a task's own dialect, a .tsv, a sync export, and a
// workbook, each read back by an outside reader (Python's csv module, openpyxl, zoneinfo).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CsvRead, readDialects, type SheetRead } from '../support/dialect-readers.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let key: string;
let projectId: string;
const { source, closeSources } = sourcePool();
const dir = mkdtempSync(join(tmpdir(), 'dc-dialects-e2e-'));

beforeAll(async () => {
  env = await startTestEnv({ SYNC_MAX_ROWS: '500' });
  ({ api_key: key, project_id: projectId } = await env.createProject({ source_hosts: ['127.0.0.1'] }));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
  rmSync(dir, { recursive: true, force: true });
});

// Instants on both sides of New York's and Shanghai's clocks, the notes full of every delimiter.
const AT = ['2026-03-08T06:59:59Z', '2026-03-08T07:00:00Z', '2026-11-01T05:30:00Z', '2026-11-01T06:30:00+00:00', '2026-11-01T01:30:00-05:00'];
const row = (i: number) => ({ id: i + 1, at: AT[i % AT.length]!, local: '2026-03-08 02:30:00', note: ['a;b', 'c|d', 'e\tf', 'g,h', '"q"\r\nx'][i % 5]! });

async function submit(body: Record<string, unknown>) {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', page_size: 100, ...body } });
  expect(res.status).toBe(202);
  const task = await env.waitForTask(res.json.task_id, key);
  expect(task.status).toBe('succeeded');
  return task as { task_id: string; files: Array<{ name: string; url: string }> };
}

async function fetched(url: string): Promise<{ body: Buffer; type: string | null }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return { body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
}

const saved = (name: string, body: Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};

describe('CSV dialects through the API', () => {
  it("a csv task takes the project's defaults, its own time_zone, and every page in that dialect", async () => {
    const patched = await env.api('PATCH', `/v1/projects/${projectId}`, { token: ADMIN, body: { csv_delimiter: ';', csv_line_ending: 'lf', csv_bom: false } });
    expect(patched.status).toBe(200);
    const src = await source({ total: 250, row });
    const task = await submit({ source_url: src.url, time_zone: 'America/New_York', file_name: 'orders' });
    expect(task.files.map((f) => f.name)).toEqual(['orders.csv']);
    const { body } = await fetched(task.files[0]!.url);
    const read = await readDialects([
      { id: 'csv', kind: 'csv', path: saved('orders.csv', body), delimiter: ';' },
      { id: 'want', kind: 'zone', zone: 'America/New_York', texts: AT },
    ]);
    const csv = read.csv as CsvRead;
    expect([csv.bom, csv.line_endings]).toEqual([false, ['\n']]);
    expect(csv.rows[0]).toEqual(['id', 'at', 'local', 'note']);
    const want = read.want as string[];
    expect(csv.rows.slice(1)).toEqual(Array.from({ length: 250 }, (_, i) => [String(i + 1), want[i % AT.length], '2026-03-08 02:30:00', row(i).note]));
    // The project's defaults are back to RFC 4180 for the tests below.
    await env.api('PATCH', `/v1/projects/${projectId}`, { token: ADMIN, body: { csv_delimiter: ',', csv_line_ending: 'crlf', csv_bom: true } });
  });

  it('csv_delimiter tab names the file .tsv (also compressed), served as tab-separated values', async () => {
    const src = await source({ total: 120, row });
    const plain = await submit({ source_url: src.url, csv_delimiter: '\t', file_name: 'orders' });
    expect(plain.files.map((f) => f.name)).toEqual(['orders.tsv']);
    const viaApi = await fetch(`${env.base}/v1/tasks/${plain.task_id}/download`, { headers: { authorization: `Bearer ${key}` } });
    expect(viaApi.headers.get('content-type')).toBe('text/tab-separated-values; charset=utf-8');
    expect(viaApi.headers.get('content-disposition')).toContain('filename="orders.tsv"');
    const body = Buffer.from(await viaApi.arrayBuffer());
    const gz = await submit({ source_url: src.url, csv_delimiter: '\t', compression: 'gzip', file_name: 'orders' });
    expect(gz.files.map((f) => f.name)).toEqual(['orders.tsv.gz']);
    expect(gunzipSync((await fetched(gz.files[0]!.url)).body)).toEqual(body);
    const read = await readDialects([{ id: 'tsv', kind: 'csv', path: saved('orders.tsv', body), delimiter: '\t' }]);
    const tsv = read.tsv as CsvRead;
    expect([tsv.bom, tsv.line_endings]).toEqual([true, ['\r\n']]);
    // No time_zone: the date-times stay as the source wrote them.
    expect(tsv.rows.slice(1)).toEqual(Array.from({ length: 120 }, (_, i) => [String(i + 1), row(i).at, row(i).local, row(i).note]));
  });

  it('a sync export is written in the dialect too', async () => {
    const src = await source({ total: 30, row });
    const res = await fetch(`${env.base}/v1/tasks/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operator_id: 'op-sync', source_url: src.url, csv_delimiter: '|', csv_line_ending: 'lf', time_zone: 'Asia/Shanghai' }),
    });
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    const read = await readDialects([
      { id: 'csv', kind: 'csv', path: saved('sync.csv', body), delimiter: '|' },
      { id: 'want', kind: 'zone', zone: 'Asia/Shanghai', texts: AT },
    ]);
    const csv = read.csv as CsvRead;
    expect(csv.line_endings).toEqual(['\n']);
    expect(csv.rows.slice(1).map((r) => r[1])).toEqual(Array.from({ length: 30 }, (_, i) => (read.want as string[])[i % AT.length]));
    expect(csv.rows.slice(1).map((r) => r[3])).toEqual(Array.from({ length: 30 }, (_, i) => row(i).note));
  });
});

describe('xlsx autofilter and time_zone through the API', () => {
  it('each part filters its table header and rows, date-times in the zone; autofilter false leaves it out', async () => {
    const src = await source({ total: 250, row });
    const template = [{ name: 'id', title: 'ID', type: 'integer' }, { title: 'When', children: [{ name: 'at', title: 'At', type: 'datetime' }, { name: 'local', title: 'Local', type: 'datetime' }] }, { name: 'note', title: 'Note' }];
    const task = await submit({ source_url: src.url, type: 'excel', template, time_zone: 'America/New_York', max_file_rows: 200, file_name: 'book' });
    expect(task.files.map((f) => f.name)).toEqual(['book-part-1.xlsx', 'book-part-2.xlsx', 'book.zip']);
    const off = await submit({ source_url: src.url, type: 'excel', autofilter: false, file_name: 'plain' });
    const read = await readDialects([
      { id: 'p1', kind: 'xlsx', path: saved('p1.xlsx', (await fetched(task.files[0]!.url)).body) },
      { id: 'p2', kind: 'xlsx', path: saved('p2.xlsx', (await fetched(task.files[1]!.url)).body) },
      { id: 'off', kind: 'xlsx', path: saved('off.xlsx', (await fetched(off.files[0]!.url)).body) },
      { id: 'want', kind: 'zone', zone: 'America/New_York', texts: AT },
    ]);
    const [p1, p2] = [(read.p1 as SheetRead[])[0]!, (read.p2 as SheetRead[])[0]!];
    // Two header rows (a tree): the filter sits on the second, over the part's own rows.
    expect([p1.filter, p2.filter]).toEqual(['A2:D202', 'A2:D52']);
    const data = [...p1.rows.slice(2), ...p2.rows.slice(2)];
    expect(data.map((r) => r[1])).toEqual(Array.from({ length: 250 }, (_, i) => (read.want as string[])[i % AT.length]));
    expect(data.map((r) => r[2])).toEqual(Array.from({ length: 250 }, () => '2026-03-08 02:30:00'));
    expect((read.off as SheetRead[])[0]!.filter).toBeNull();
  }, 120_000);

  it('refuses an unknown time_zone with 422 naming it', async () => {
    const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', source_url: 'http://127.0.0.1:1/x', time_zone: 'Europe/Atlantis' } });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'validation_failed', details: [expect.objectContaining({ field: 'time_zone' })] });
  });
});
