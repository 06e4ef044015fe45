import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithProject, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';
import { rechargeTemplate } from '../support/templates.js';
import { fetchListed, merges, readSheet, rowValues } from '../support/xlsx.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

const submit = (body: Record<string, unknown>) => env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', type: 'excel', ...body } });

beforeAll(async () => ({ env, key } = await startWithProject({}, { source_hosts: ['127.0.0.1'] })));

afterAll(async () => {
  await closeSources();
  await env?.close();
});

const rowTemplate = {
  row: [
    { title: '线上', bg_color: 'FFDDEBF7', children: [{ name: 'wechat', title: '微信' }, { name: 'alipay', title: '支付宝' }] },
    { name: 'cash', title: '现金' },
  ],
  ceil: [
    { name: '_row_header', title: '渠道' },
    { name: 'day', title: '日期', type: 'date' },
    { name: 'amount', title: '金额', type: 'money', condition_style: [{ condition: '< 0', color: 'red' }] },
  ],
};
const r = (day: number, amount: number) => ({ day: `2026-11-0${day}`, amount });
/** exceljs reads a date-formatted serial back as a Date. */
const d = (day: number) => new Date(Date.UTC(2026, 10, day));
// Three-dimensional data: one group per element; the second names its leaf; the last has none.
const groups = [[r(1, 10), r(2, 20), r(3, -5)], { alipay: [r(1, 7), r(2, 8)] }, [r(1, 100), r(2, 200)], [r(9, 1)]];

async function exported(body: Record<string, unknown>) {
  const src = await source({ total: groups.length, row: (i) => groups[i] as never });
  const res = await submit({ source_url: src.url, template: rowTemplate, file_name: 'channels', ...body });
  expect(res.status).toBe(202);
  const task = await env.waitForTask(res.json.task_id, key);
  expect(task.error).toBeNull();
  return task;
}

describe('Excel export with row headers (three-dimensional data)', () => {
  it('merges each row title over its group rows, parents over their children', async () => {
    const task = await exported({});
    expect(task.files.map((f: { rows: number }) => f.rows)).toEqual([8]);
    const ws = await readSheet(await fetchListed(task.files[0]));
    expect(merges(ws)).toEqual(['A1:B1', 'A2:A6', 'A7:B8', 'B2:B4', 'B5:B6']);
    expect(rowValues(ws, 1)).toEqual(['渠道', '渠道', '日期', '金额']);
    expect([2, 3, 4, 5, 6, 7, 8, 9].map((n) => rowValues(ws, n).slice(0, 2))).toEqual([
      ['线上', '微信'], ['线上', '微信'], ['线上', '微信'], ['线上', '支付宝'], ['线上', '支付宝'], ['现金', '现金'], ['现金', '现金'], [null, null],
    ]);
    expect(rowValues(ws, 4).slice(2)).toEqual([d(3), -5]);
    expect(ws.getCell('C4').numFmt).toBe('yyyy-mm-dd');
    expect(ws.getCell('D4').font?.color?.argb).toBe('FFFF0000');
    expect(ws.getCell('D3').font?.color?.argb).toBeUndefined();
    expect(rowValues(ws, 9).slice(2)).toEqual([d(9), 1]);
    expect(ws.getCell('A2').fill).toMatchObject({ pattern: 'solid', fgColor: { argb: 'FFDDEBF7' } });
    expect(ws.getCell('A2').font?.bold).toBe(true);
  });

  it('closes row-title merges at a part boundary and repeats the titles in the next part', async () => {
    const task = await exported({ max_file_rows: 4 });
    expect(task.files.map((f: { name: string; rows: number }) => [f.name, f.rows])).toEqual([
      ['channels-part-1.xlsx', 4],
      ['channels-part-2.xlsx', 4],
      ['channels.zip', 8],
    ]);
    const one = await readSheet(await fetchListed(task.files[0]));
    expect(merges(one)).toEqual(['A1:B1', 'A2:A5', 'B2:B4']);
    expect(rowValues(one, 5)).toEqual(['线上', '支付宝', d(1), 7]);
    const two = await readSheet(await fetchListed(task.files[1]));
    expect(merges(two)).toEqual(['A1:B1', 'A3:B4']);
    expect(rowValues(two, 1)).toEqual(['渠道', '渠道', '日期', '金额']);
    expect(rowValues(two, 2)).toEqual(['线上', '支付宝', d(2), 8]);
    expect(rowValues(two, 3)).toEqual(['现金', '现金', d(1), 100]);
  });
});

describe('Template validation', () => {
  it('answers 422 naming the field for a bad template, header or limit at submission', async () => {
    const src = await source({ total: 1 });
    const badCondition = structuredClone(rechargeTemplate);
    Object.assign(badCondition[1]!.children![3]!, { condition_style: [{ condition: '>= 100 and or', color: 'red' }] });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ template: badCondition }, 'template.1.children.3.condition_style.0.condition', /invalid condition: expected a comparison .* found "or" at character 12/],
      [{ template: [{ name: 'a', type: 'money2' }] }, 'template.0.type', /./],
      [{ template: [{ name: 'a', color: 'purple' }] }, 'template.0.color', /must be a colour/],
      [{ template: { ceil: [{ name: 'a' }], row: [{ bold: true }] } }, 'template.row.0.name', /give the node a name or a title/],
      [{ template: [{ name: '_' }] }, 'template', /has no column that maps to data/],
      [{ template: 'columns' }, 'template', /must be an object or an array/],
      [{ header: 'not pairs' }, 'header', /key\/value pairs/],
      [{ max_file_bytes: 1000 }, 'max_file_bytes', /./],
      [{ max_file_rows: 2_000_000 }, 'max_file_rows', /./],
      [{ type: 'pdf' }, 'type', /./],
    ];
    for (const [body, field, message] of cases) {
      const res = await submit({ source_url: src.url, ...body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.error.code).toBe('validation_failed');
      expect(res.json.error.details).toContainEqual({ field, message: expect.stringMatching(message) });
    }
    let deep: Record<string, unknown> = { name: 'leaf' };
    for (let i = 0; i < 9; i++) deep = { title: `level ${i}`, children: [deep] };
    const res = await submit({ source_url: src.url, template: [deep] });
    expect(res.json.error.details).toEqual([{ field: 'template', message: 'is nested deeper than 8 levels' }]);
    expect(src.requests).toEqual([]);
  });

  it('fails the task with template_invalid when the source sends a bad template, before fetching pages', async () => {
    const src = await source({ total: 5000, firstExtras: { template: [{ name: 'id', condition_style: [{ condition: "like 5" }] }] } });
    const res = await submit({ source_url: src.url, page_size: 100 });
    expect(res.status).toBe(202);
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('failed');
    expect(task.error.code).toBe('template_invalid');
    expect(task.error.message).toMatch(/^the template is not valid: 0\.condition_style\.0\.condition: invalid condition: expected a quoted pattern after like/);
    expect(src.requests).toHaveLength(1);
    expect(await env.core.storage.list(`staging/${task.task_id}`)).toEqual([]);
  });

  it('fails with source_bad_response when the source sends a header that is not pairs', async () => {
    const src = await source({ total: 3, firstExtras: { header: 'oops' } });
    const task = await env.waitForTask((await submit({ source_url: src.url })).json.task_id, key);
    expect(task.error).toEqual({ code: 'source_bad_response', message: expect.stringMatching(/^the source's header is not valid: .*key\/value pairs/) });
  });
});
