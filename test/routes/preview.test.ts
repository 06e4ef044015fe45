// POST /v1/tasks/preview in process (route-app.ts), against a real source server on loopback:
// a preview runs no workflow, so the whole of it is here but the Temporal server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { ADMIN, type Project, type RouteApp, startRouteApp } from '../support/route-app.js';
import { type SourceServer, sourcePool } from '../support/source-server.js';
import { itCalledItsRoutes } from './routes.js';

const pool = sourcePool();
let rt: RouteApp;
let src: SourceServer;
let a: Project;
let b: Project;
beforeAll(async () => {
  rt = await startRouteApp();
  src = await pool.source({ total: 50 });
  a = await rt.createProject({ name: 'a', source_hosts: [src.host] });
  // B's sources live elsewhere: A's allow-list is not B's.
  b = await rt.createProject({ name: 'b', source_hosts: ['b.example'] });
});
afterAll(async () => {
  await rt?.close();
  await pool.closeSources();
});

const preview = (key: string, body: Record<string, unknown>) => rt.call('POST', '/v1/tasks/preview', { token: key, body: { operator_id: 'op-1', ...body } });

describe('POST /v1/tasks/preview', () => {
  it('answers the first rows as the file, with the counts, and creates no task', async () => {
    const res = await preview(a.api_key, { source_url: src.url, rows: 3, page_size: 100 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect([res.headers.get('x-preview-rows'), res.headers.get('x-source-total')]).toEqual(['3', '50']);
    expect(res.headers.get('ratelimit')).toMatch(/^"submit";r=\d+;t=\d+$/);
    const lines = res.text.replace(/^\ufeff/, '').trim().split(/\r?\n/);
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain('客户 1');
    expect((await rt.call('GET', '/v1/tasks', { token: a.api_key })).json.items).toEqual([]);
    expect(rt.temporal.calls).toEqual([]);
  });

  it("is laid out in the task's CSV dialect: a tab-separated preview is a .tsv with LF line ends", async () => {
    const res = await preview(a.api_key, { source_url: src.url, rows: 8, page_size: 100, csv_delimiter: '\t', csv_line_ending: 'lf', csv_bom: false });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/tab-separated-values/);
    expect(res.headers.get('content-disposition')).toMatch(/\.tsv"/);
    const lines = res.text.split('\n');
    expect(lines.slice(0, 2)).toEqual(['id\tname\tamount\tnote', '1\t客户 1\t0\t"a, ""quoted"" note"']);
    expect(lines).toHaveLength(10);
    expect(res.text).not.toContain('\r');
  });

  it("answers a source's failure with 502 and its code", async () => {
    const down = await pool.source({ total: 10, intercept: () => ({ status: 500, body: '{"oops":true}' }) });
    await rt.call('PATCH', `/v1/projects/${a.project_id}`, { token: ADMIN, body: { source_hosts: [src.host, down.host] } });
    const res = await preview(a.api_key, { source_url: down.url });
    expect(res.status).toBe(502);
    expect(res.json.error.code).toMatch(/^source_/);
    expectError(res, 502, res.json.error.code);
  });

  it('answers 422 too_many_parts when the export would be split into more than MAX_PARTS files, as its probe would fail', async () => {
    const big = await pool.source({ total: 1001 });
    await rt.call('PATCH', `/v1/projects/${a.project_id}`, { token: ADMIN, body: { source_hosts: [src.host, big.host] } });
    for (const type of ['csv', 'jsonl', 'parquet', 'excel']) {
      // 1,001 rows at 1 a file: 1,001 files, over MAX_PARTS (1,000 by default).
      const res = await preview(a.api_key, { source_url: big.url, rows: 3, max_file_rows: 1, type });
      expectError(res, 422, 'too_many_parts');
      expect(res.json.error.message, type).toMatch(/1001 rows at 1 a file make 1001 files; a task may have at most 1000 files \(MAX_PARTS\)/);
    }
    // At 2 a file they are 501: the preview is the zip of its parts.
    const ok = await preview(a.api_key, { source_url: big.url, rows: 3, max_file_rows: 2 });
    expect(ok.status).toBe(200);
  });

  it("answers a value that does not fit its template type with 422 render_failed, naming row and column", async () => {
    const odd = await pool.source({ total: 5, row: (i) => ({ id: i + 1, amount: i === 2 ? 'n/a' : i * 10 }) });
    await rt.call('PATCH', `/v1/projects/${a.project_id}`, { token: ADMIN, body: { source_hosts: [src.host, odd.host] } });
    const template = [{ name: 'id', type: 'integer' }, { name: 'amount', type: 'integer' }];
    const res = await preview(a.api_key, { source_url: odd.url, type: 'parquet', template, rows: 5 });
    // The source's data is no fault of ours: never a 500.
    expectError(res, 422, 'render_failed');
    expect(res.json.error.message).toMatch(/row 3, column "amount": "n\/a" is not an integer/);
  });

  it('answers 422 export_too_large when the sheets together are over MAX_EXPORT_ROWS, as the export\'s probe would', async () => {
    const small = await startRouteApp({ MAX_EXPORT_ROWS: '100' });
    try {
      const p = await small.createProject({ name: 'sheets', source_hosts: [src.host] });
      // 50 rows a sheet, within the limit alone; 150 together.
      const sheets = [1, 2, 3].map((n) => ({ source_url: `${src.url}?sheet=${n}`, name: `S${n}` }));
      const res = await small.call('POST', '/v1/tasks/preview', { token: p.api_key, body: { operator_id: 'op-1', type: 'excel', rows: 3, sheets } });
      expectError(res, 422, 'export_too_large');
      expect(res.json.error.message).toMatch(/150 rows together; an export may have at most 100/);
    } finally {
      await small.close();
    }
  });

  it("answers a source's bad answer with 502 source_bad_response, saying what it was", async () => {
    const bad = await pool.source({ total: 5, intercept: (r) => (r.pageSize > 1 ? { status: 200, body: '{"total": 5, "data": "rows"}' } : undefined) });
    await rt.call('PATCH', `/v1/projects/${a.project_id}`, { token: ADMIN, body: { source_hosts: [src.host, bad.host] } });
    const res = await preview(a.api_key, { source_url: bad.url, rows: 5 });
    expectError(res, 502, 'source_bad_response');
    expect(res.json.error.message).toMatch(/no "data" array/);
  });

  it('refuses rows out of range and a missing field (422 naming them), bad JSON (400)', async () => {
    for (const [body, field] of [
      [{ source_url: src.url, rows: 0 }, 'rows'],
      [{ source_url: src.url, rows: 201 }, 'rows'],
      [{ rows: 5 }, 'source_url'],
    ] as const) {
      const res = await preview(a.api_key, body);
      expectError(res, 422, 'validation_failed');
      expect(res.json.error.details[0].field).toBe(field);
    }
    expectError(await rt.call('POST', '/v1/tasks/preview', { token: a.api_key, raw: '{', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
  });

  it("refuses a source outside the caller's own allow-list, though another project's allows it", async () => {
    const asked = src.requests.length;
    expectError(await preview(b.api_key, { source_url: src.url }), 422, 'source_host_not_allowed');
    // Refused before any request to the source.
    expect(src.requests.length).toBe(asked);
  });

  it('needs a project key', async () => {
    await expectKeyRefusals(rt, 'POST', '/v1/tasks/preview', { project: a.api_key }, { body: { operator_id: 'x', source_url: src.url } });
  });
});

itCalledItsRoutes('preview', () => rt);
