// Several worksheets in one workbook (`sheets`): each sheet its own source and layout, fetched in
// parallel within the project's politeness limits, written in order, split into parts like any export.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';
import { rechargeRow, styledRechargeTemplate } from '../support/templates.js';
import { fetchListed, merges, readSheets, rowValues, zipEntries } from '../support/xlsx.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

const submit = (body: Record<string, unknown>, token = key) => env.api('POST', '/v1/tasks', { token, body: { operator_id: 'op-1', type: 'excel', ...body } });

async function exportOf(body: Record<string, unknown>, token = key) {
  const res = await submit(body, token);
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const task = await env.waitForTask(res.json.task_id, token, undefined, 120_000);
  expect(task.error).toBeNull();
  expect(task.status).toBe('succeeded');
  return task;
}

beforeAll(async () => {
  env = await startTestEnv();
  ({ api_key: key } = await env.createProject({ source_hosts: ['127.0.0.1'], max_running_tasks: 10 }));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

const refundRow = (i: number) => ({ order: `R${String(i + 1).padStart(5, '0')}`, amount: (i % 9) * 10.5, status: i % 4 === 0 ? 'failed' : 'ok' });
const refundTemplate = [
  { name: 'order', title: '订单号' },
  { title: '退款', children: [{ name: 'amount', title: '金额', type: 'money' }, { name: 'status', title: '状态', condition_style: [{ condition: "= 'failed'", color: 'red' }] }] },
];

describe('a workbook of two sheets', () => {
  it('writes each sheet with its own title, header area, merged table header, rows and footer; progress counts both', async () => {
    const recharge = await source({ total: 6, row: rechargeRow, firstExtras: { footer: { 签名: '', 日期: '' } } });
    const refunds = await source({ total: 1250, row: refundRow });
    const task = await exportOf({
      file_name: 'monthly',
      page_size: 100,
      sheets: [
        { source_url: recharge.url, name: '充值', title: '充值汇总', header: { 月份: '2026-11' }, template: styledRechargeTemplate },
        { source_url: refunds.url, title: '退款明细', template: refundTemplate, footer: [{ 制表人: '松林' }] },
      ],
    });
    expect(task.sheets).toEqual([
      { name: '充值', source_url: recharge.url },
      { name: '退款明细', source_url: refunds.url },
    ]);
    expect(task.source_url).toBe(recharge.url);
    expect(task.progress).toMatchObject({ total_rows: 1256, fetched_rows: 1256, pages_total: 1 + 13, pages_done: 14, percent: 100 });
    expect(task.files.map((f: { name: string; rows: number }) => [f.name, f.rows])).toEqual([['monthly.xlsx', 1256]]);

    const [first, second, ...more] = await readSheets(await fetchListed(task.files[0]));
    expect(more).toEqual([]);
    expect([first!.name, second!.name]).toEqual(['充值', '退款明细']);

    // Sheet 1: title, header area (one pair over 10 columns), the design's three-row table header, 6 rows, footer.
    expect(first!.getCell('A1').value).toBe('充值汇总');
    expect(rowValues(first!, 2)).toEqual(['月份', '月份', '月份', '月份', '月份', '2026-11', '2026-11', '2026-11', '2026-11', '2026-11']);
    expect(rowValues(first!, 4)).toEqual(['来源方式', '充值笔数', '付款金额', '其中', '其中', '充值金额', '优惠汇总', '退款笔数', '退款金额', '实退金额']);
    expect(rowValues(first!, 6)).toEqual(['微信公众号', 100, 5000, 3000, 2000.25, 0, 0.05, 0, 0, 0]);
    expect(merges(first!)).toEqual(
      ['A1:J1', 'A2:E2', 'F2:J2', 'A3:A5', 'B3:G3', 'H3:J3', 'B4:B5', 'C4:C5', 'D4:E4', 'F4:F5', 'G4:G5', 'H4:H5', 'I4:I5', 'J4:J5', 'A12:B12', 'C12:E12', 'F12:G12', 'H12:J12'].sort(),
    );
    expect(first!.getCell('F10').font?.color?.argb).toBe('FFFF0000');
    expect(first!.rowCount).toBe(12);

    // Sheet 2: its own title, two-row header, all 1250 rows in source order, its own footer and styles.
    expect(second!.getCell('A1').value).toBe('退款明细');
    expect(rowValues(second!, 2)).toEqual(['订单号', '退款', '退款']);
    expect(rowValues(second!, 3)).toEqual(['订单号', '金额', '状态']);
    expect(merges(second!)).toEqual(['A1:C1', 'A2:A3', 'B2:C2', 'B1254:C1254'].sort());
    expect(rowValues(second!, 4)).toEqual(['R00001', 0, 'failed']);
    expect(rowValues(second!, 1253)).toEqual(['R01250', 73.5, 'ok']);
    expect(second!.getCell('B4').numFmt).toBe('#,##0.00');
    expect(second!.getCell('C4').font?.color?.argb).toBe('FFFF0000');
    expect(second!.getCell('C5').font?.color?.argb).toBeUndefined();
    expect(second!.getCell('A1254').value).toBe('制表人');
    expect(second!.getCell('B1254').value).toBe('松林');
  });

  it('fetches the sheets in parallel within the project source_max_concurrency', async () => {
    const { api_key } = await env.createProject({ source_hosts: ['127.0.0.1'], source_max_concurrency: 2 });
    const src = await source({ total: 300, delayMs: () => 60 });
    const task = await exportOf({ page_size: 100, sheets: [1, 2, 3, 4].map((n) => ({ source_url: `${src.url}?sheet=${n}`, name: `S${n}` })) }, api_key);
    expect(src.maxInFlight()).toBe(2);
    // Every sheet's pages, once each, from its own URL.
    for (const n of [1, 2, 3, 4]) {
      expect(src.requests.filter((r) => r.query.get('sheet') === String(n) && r.pageSize === 100).map((r) => r.page).sort()).toEqual([0, 1, 2]);
    }
    const sheets = await readSheets(await fetchListed(task.files[0]));
    expect(sheets.map((s) => [s.name, s.rowCount])).toEqual([['S1', 301], ['S2', 301], ['S3', 301], ['S4', 301]]);
  });
});

it('pauses a workbook of two sheets mid-fetch and resumes it to exactly both sources', async () => {
  const slow = { delayMs: (r: { pageSize: number }) => (r.pageSize === 1 ? 0 : 25) };
  const [a, b] = await Promise.all([source({ total: 6000, row: (i) => ({ a: i }), ...slow }), source({ total: 4000, row: (i) => ({ b: i }), ...slow })]);
  const res = await submit({ page_size: 100, sheets: [{ source_url: a.url, name: 'a' }, { source_url: b.url, name: 'b' }] });
  const id = res.json.task_id;
  await env.waitForTask(id, key, (t) => t.progress.percent >= 30);
  const paused = await env.api('POST', `/v1/tasks/${id}/pause`, { token: key });
  expect(paused.json).toMatchObject({ status: 'paused' });
  expect(paused.json.progress.percent).toBeLessThan(100);
  const asked = a.requests.length + b.requests.length;
  await new Promise((r) => setTimeout(r, 400));
  expect(a.requests.length + b.requests.length).toBe(asked);

  expect((await env.api('POST', `/v1/tasks/${id}/resume`, { token: key })).status).toBe(202);
  const done = await env.waitForTask(id, key, undefined, 120_000);
  expect(done).toMatchObject({ status: 'succeeded', progress: { total_rows: 10_000, fetched_rows: 10_000, percent: 100 } });
  const [sa, sb] = await readSheets(await fetchListed(done.files[0]));
  expect(Array.from({ length: sa!.rowCount - 1 }, (_, i) => sa!.getCell(`A${i + 2}`).value)).toEqual(Array.from({ length: 6000 }, (_, i) => i));
  expect(Array.from({ length: sb!.rowCount - 1 }, (_, i) => sb!.getCell(`A${i + 2}`).value)).toEqual(Array.from({ length: 4000 }, (_, i) => i));
  // Pages stored before the pause were not fetched again (only the few waiting in memory were).
  const refetched = [...a.pageCounts().values(), ...b.pageCounts().values()].filter((n) => n > 1).length;
  expect(refetched).toBeLessThan(20);
}, 120_000);

describe('splitting a workbook of several sheets', () => {
  it('keeps whole sheets together where they fit and names the continuation of a cut sheet', async () => {
    const row = (i: number) => ({ n: i + 1 });
    const sizes = { A: 30, B: 25, C: 10, D: 70 };
    const srcs = await Promise.all(Object.values(sizes).map((total) => source({ total, row })));
    const task = await exportOf({
      file_name: 'split',
      max_file_rows: 40,
      page_size: 100,
      sheets: Object.keys(sizes).map((name, i) => ({ source_url: srcs[i]!.url, name, title: `表 ${name}` })),
    });
    const files = task.files as Array<{ name: string; rows: number; url: string; bytes: number; sha256: string }>;
    expect(files.map((f) => [f.name, f.rows])).toEqual([
      ['split-part-1.xlsx', 30],
      ['split-part-2.xlsx', 40],
      ['split-part-3.xlsx', 40],
      ['split-part-4.xlsx', 25],
      ['split.zip', 135],
    ]);
    const parts = await Promise.all(files.slice(0, -1).map(async (f) => readSheets(await fetchListed(f))));
    // [A] · [B, C, D's first 5 rows] · [D (2)] · [D (3)]: B starts a fresh part because it fits whole there.
    expect(parts.map((p) => p.map((s) => s.name))).toEqual([['A'], ['B', 'C', 'D'], ['D (2)'], ['D (3)']]);
    const dataOf = (s: (typeof parts)[number][number]) => Array.from({ length: s.rowCount - 2 }, (_, i) => s.getCell(`A${i + 3}`).value);
    // Every piece repeats its sheet's title and table header; the rows continue in order.
    for (const s of parts.flat()) expect([s.getCell('A1').value, s.getCell('A2').value]).toEqual([`表 ${s.name[0]}`, 'n']);
    expect(parts.flat().filter((s) => s.name.startsWith('D')).flatMap(dataOf)).toEqual(Array.from({ length: 70 }, (_, i) => i + 1));
    expect(dataOf(parts[1]![1]!)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    const zip = await zipEntries(await fetchListed(files[files.length - 1]!));
    expect([...zip.keys()]).toEqual(files.slice(0, -1).map((f) => f.name));
  });

  it('splits by compressed size with every part within the limit', async () => {
    const noisy = (i: number) => ({ id: i + 1, text: `${createHash('sha512').update(`n${i}`).digest('base64')}${createHash('sha512').update(`m${i}`).digest('hex')}` });
    const [a, b] = await Promise.all([source({ total: 5000, row: noisy }), source({ total: 5000, row: noisy })]);
    const MiB = 1024 * 1024;
    const task = await exportOf({ file_name: 'bytes', max_file_bytes: MiB, page_size: 1000, sheets: [{ source_url: a.url, name: 'one' }, { source_url: b.url, name: 'two' }] });
    const files = task.files as Array<{ name: string; rows: number; url: string; bytes: number; sha256: string }>;
    const parts = files.slice(0, -1);
    expect(parts.length).toBeGreaterThanOrEqual(2);
    let rows = 0;
    const ids: Record<string, number[]> = { one: [], two: [] };
    for (const f of parts) {
      expect(f.bytes).toBeLessThanOrEqual(MiB);
      for (const s of await readSheets(await fetchListed(f))) {
        const base = s.name.replace(/ \(\d+\)$/, '');
        for (let r = 2; r <= s.rowCount; r++) ids[base]!.push(s.getCell(`A${r}`).value as number);
      }
      rows += f.rows;
    }
    expect(rows).toBe(10_000);
    expect(ids.one).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    expect(ids.two).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
  });
});

describe('sheets: refusals and failures', () => {
  it('answers 422 naming the field for sheets that cannot be', async () => {
    const url = 'http://127.0.0.1:9/x';
    const cases: Array<[Record<string, unknown>, string, number?]> = [
      [{ type: 'csv', sheets: [{ source_url: url }] }, 'sheets'],
      [{ title: 'top', sheets: [{ source_url: url }] }, 'title'],
      [{ source_url: 'http://127.0.0.1:9/other', sheets: [{ source_url: url }] }, 'source_url'],
      [{ sheets: [{ source_url: url, name: 'Same' }, { source_url: url, name: 'same' }] }, 'sheets.1.name'],
      [{ sheets: [{ source_url: url }, { source_url: url, template: [{ name: 'a', condition_style: [{ condition: '>= or 1' }] }] }] }, 'sheets.1.template.0.condition_style.0.condition'],
      [{ sheets: [{ source_url: url, name: 'x'.repeat(32) }] }, 'sheets.0.name'],
      [{ sheets: [] }, 'sheets'],
      [{ sheets: [{ source_url: url }, { source_url: 'http://elsewhere.example/x' }] }, 'sheets.1.source_url'],
    ];
    for (const [body, field] of cases) {
      const res = await submit(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.error.details.map((d: { field: string }) => d.field), JSON.stringify(res.json)).toContain(field);
    }
    expect((await submit({ sheets: [{ source_url: url }, { source_url: 'http://elsewhere.example/x' }] })).json.error.code).toBe('source_host_not_allowed');
  });

  it('fails the task with the code of a failing sheet, naming the sheet', async () => {
    const good = await source({ total: 3 });
    const bad = await source({ total: 3, intercept: () => ({ status: 404, body: '{}' }) });
    const res = await submit({ sheets: [{ source_url: good.url, name: 'good' }, { source_url: bad.url, name: 'broken' }] });
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('failed');
    expect(task.error.code).toBe('source_bad_response');
    expect(task.error.message).toMatch(/^sheet 2 \("broken"\): source answered HTTP 404/);
  });
});
