// POST /v1/tasks/preview: the first rows of an export, rendered exactly as the export renders them,
// with nothing stored and no task created; refusals as at submission, source problems as the task's.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithProject, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';
import { rechargeRow, styledRechargeTemplate } from '../support/templates.js';
import { fetchListed, merges, readSheet, readSheets, zipEntries } from '../support/xlsx.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

async function preview(body: Record<string, unknown>, token = key) {
  const res = await fetch(`${env.base}/v1/tasks/preview`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ operator_id: 'op-1', ...body }),
  });
  const body_ = Buffer.from(await res.arrayBuffer());
  const json = res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(body_.toString('utf8')) : null;
  return { status: res.status, headers: res.headers, body: body_, json };
}

async function exportOf(body: Record<string, unknown>) {
  const res = await env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const task = await env.waitForTask(res.json.task_id, key);
  expect(task.status).toBe('succeeded');
  return task;
}

/** Every file under a directory (recursively); [] when it does not exist. */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  } catch {
    return [];
  }
}

beforeAll(async () => ({ env, key } = await startWithProject({}, { source_hosts: ['127.0.0.1'] })));

afterAll(async () => {
  await closeSources();
  await env?.close();
});

/** A cell as a reader sees it: value, type and every part of its style. */
const cellOf = (ws: ExcelJS.Worksheet, row: number, col: number) => {
  const c = ws.getCell(row, col);
  return { value: c.value, type: c.type, style: JSON.parse(JSON.stringify(c.style)) };
};

describe('preview of the design example', () => {
  it('matches the first rows of the full export cell for cell: values, merges, styles, widths', async () => {
    const src = await source({ total: 600, row: rechargeRow, firstExtras: { footer: { 签名: '', 日期: '' } } });
    const body = {
      type: 'excel',
      source_url: src.url,
      file_name: '充值退款',
      template: styledRechargeTemplate,
      title: '2026年11月 充值退款汇总',
      summary: '<p><b>口径说明：</b>充值金额含<span style="color:#C00000">赠送金额</span>。</p>',
      header: { 油站: '钓鱼岛', 日期: '2026-11', 操作员: '松林' },
    };
    const res = await preview({ ...body, rows: 20 });
    expect(res.status, res.body.toString()).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('充值退款.xlsx')}`);
    expect([res.headers.get('x-preview-rows'), res.headers.get('x-source-total')]).toEqual(['20', '600']);
    expect(res.headers.get('ratelimit-policy')).toBe('"submit";q=60;w=60');
    // Only the pages needed: the probe and page 0 at the task's page_size, as the export asks them.
    expect(src.requests.map((r) => [r.page, r.pageSize])).toEqual([[0, 1], [0, 500]]);

    const task = await exportOf(body);
    const full = await readSheet(await fetchListed(task.files[0]));
    const pre = await readSheet(res.body);
    const above = 6; // title, summary, the header area's row, three table-header rows
    expect(pre.rowCount).toBe(above + 20 + 1);
    expect(full.rowCount).toBe(above + 600 + 1);
    for (let r = 1; r <= above + 20; r++) {
      for (let c = 1; c <= 10; c++) expect(cellOf(pre, r, c), `row ${r} column ${c}`).toEqual(cellOf(full, r, c));
      expect(pre.getRow(r).height).toEqual(full.getRow(r).height);
    }
    // The footer follows the preview's last row, as the export's follows its last.
    for (let c = 1; c <= 10; c++) expect(cellOf(pre, above + 21, c)).toEqual(cellOf(full, above + 601, c));
    const footerMerge = (m: string, from: number, to: number) => m.replace(new RegExp(`([A-Z])${from}\\b`, 'g'), `$1${to}`);
    expect(merges(pre).map((m) => footerMerge(m, above + 21, above + 601)).sort()).toEqual(merges(full));
    expect(pre.columns.map((c) => c.width)).toEqual(full.columns.map((c) => c.width));
    // One style table, byte for byte, and the same frozen panes.
    const [p, f] = [await zipEntries(res.body), await zipEntries(await fetchListed(task.files[0]))];
    expect(p.get('xl/styles.xml')!.equals(f.get('xl/styles.xml')!)).toBe(true);
    expect(pre.views).toEqual(full.views);
  });

  it('creates no task and stores nothing', async () => {
    const { api_key } = await env.createProject({ source_hosts: ['127.0.0.1'] });
    const src = await source({ total: 50 });
    const before = filesUnder(env.config.DATA_DIR);
    for (const type of ['csv', 'excel']) expect((await preview({ type, source_url: src.url, callback: undefined }, api_key)).status).toBe(200);
    expect((await env.api('GET', '/v1/tasks', { token: api_key })).json.items).toEqual([]);
    expect((await env.api('GET', '/v1/tasks/counts', { token: api_key })).json.counts).toMatchObject({ queued: 0, running: 0, succeeded: 0 });
    // Not a file more under DATA_DIR: no staged page, no rendered part, no temporary file left behind.
    expect(filesUnder(env.config.DATA_DIR)).toEqual(before);
  });

  it('renders CSV as the export writes it, and fetches two pages for more rows than a page holds', async () => {
    const src = await source({ total: 1000 });
    const res = await preview({ source_url: src.url, rows: 150, page_size: 100 });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(src.requests.map((r) => [r.page, r.pageSize])).toEqual([[0, 1], [0, 100], [1, 100]]);
    const task = await exportOf({ source_url: src.url, page_size: 100 });
    const full = (await fetchListed(task.files[0])).toString('utf8').split('\r\n');
    expect(res.body.toString('utf8')).toBe(full.slice(0, 151).join('\r\n') + '\r\n');
  });

  it('previews each sheet of a workbook of several', async () => {
    const [a, b] = await Promise.all([source({ total: 100, row: (i) => ({ a: i }) }), source({ total: 3, row: (i) => ({ b: i }) })]);
    const res = await preview({ type: 'excel', rows: 5, sheets: [{ source_url: a.url, name: 'A', title: 'A 表' }, { source_url: b.url, name: 'B' }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-preview-rows')).toBe('8');
    const sheets = await readSheets(res.body);
    expect(sheets.map((s) => [s.name, s.rowCount])).toEqual([['A', 7], ['B', 4]]);
    expect(sheets[0]!.getCell('A7').value).toBe(4);
  });
});

describe('preview refusals and failures', () => {
  it('refuses what a submission refuses, with 422 naming the field', async () => {
    const src = await source({ total: 1 });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'excel', source_url: src.url, template: [{ name: 'a', condition_style: [{ condition: '>= or 1' }] }] }, 'template.0.condition_style.0.condition'],
      [{ source_url: src.url, rows: 201 }, 'rows'],
      [{ source_url: src.url, rows: 0 }, 'rows'],
      [{ source_url: 'http://elsewhere.example/x' }, 'source_url'],
    ];
    for (const [body, field] of cases) {
      const res = await preview(body);
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect(src.requests).toEqual([]);
  });

  it('answers a source problem with the code the export would fail with', async () => {
    const notFound = await source({ total: 5, intercept: () => ({ status: 404, body: '{}' }) });
    const down = await source({ total: 5, intercept: () => ({ status: 503, body: '{}', headers: { 'retry-after': '7' } }) });
    const badTemplate = await source({ total: 5, firstExtras: { template: [{ name: 'a', width: 999 }] } });
    const changed = await source({ total: 5, intercept: (r) => (r.pageSize > 1 ? { status: 200, body: JSON.stringify({ total: 6, data: [] }) } : undefined) });
    const cases: Array<[string, number, string]> = [
      [notFound.url, 502, 'source_bad_response'],
      [down.url, 502, 'source_unreachable'],
      [badTemplate.url, 502, 'template_invalid'],
      [changed.url, 502, 'source_changed'],
    ];
    for (const [url, status, code] of cases) {
      const res = await preview({ type: 'excel', source_url: url });
      expect([res.status, res.json.error.code], res.json.error.message).toEqual([status, code]);
    }
    expect((await preview({ source_url: down.url })).headers.get('retry-after')).toBe('7');
  });

  it('is rate-limited like submissions, from the same quota', async () => {
    const { api_key } = await env.createProject({ source_hosts: ['127.0.0.1'], submit_per_minute: 2 });
    const src = await source({ total: 2 });
    expect((await preview({ source_url: src.url }, api_key)).status).toBe(200);
    expect((await env.api('POST', '/v1/tasks', { token: api_key, body: { operator_id: 'op', source_url: src.url } })).status).toBe(202);
    const limited = await preview({ source_url: src.url }, api_key);
    expect([limited.status, limited.json.error.code]).toEqual([429, 'rate_limited']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit')).toMatch(/^"submit";r=0;t=\d+$/);
  });
});
