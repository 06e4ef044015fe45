import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithProject, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';
import { rechargeRow, styledRechargeTemplate } from '../support/templates.js';
import { fetchListed, merges, readSheet, rowValues, zipEntries } from '../support/xlsx.js';

let env: TestEnv;
let key: string;
const { source, closeSources } = sourcePool();

const submit = (body: Record<string, unknown>) => env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', type: 'excel', ...body } });

async function exportOf(body: Record<string, unknown>) {
  const res = await submit(body);
  expect(res.status).toBe(202);
  const task = await env.waitForTask(res.json.task_id, key);
  expect(task.error).toBeNull();
  expect(task.status).toBe('succeeded');
  return task;
}

beforeAll(async () => ({ env, key } = await startWithProject({}, { source_hosts: ['127.0.0.1'] })));

afterAll(async () => {
  await closeSources();
  await env?.close();
});

describe('Excel export with the design example template', () => {
  it('lays out title, summary, header area, merged table header, typed data and footer', async () => {
    const src = await source({ total: 6, row: rechargeRow, firstExtras: { footer: { 签名: '', 日期: '' } } });
    const task = await exportOf({
      type: 'xlsx',
      source_url: src.url,
      file_name: 'recharge',
      template: styledRechargeTemplate,
      title: '2026年11月 充值退款汇总',
      summary: '<p><b>口径说明：</b>充值金额含<span style="color:#C00000">赠送金额</span>；退款以到账为准。</p><p>数据截至 <i>2026-11-30</i>。</p>',
      header: { 油站: '钓鱼岛', 日期: '2026-11', 操作员: '松林', 班次: '全天', 币种: 'CNY' },
    });
    expect(task.type).toBe('excel');
    expect(task.files.map((f: { name: string; rows: number }) => [f.name, f.rows])).toEqual([['recharge.xlsx', 6]]);
    const ws = await readSheet(await fetchListed(task.files[0]));

    expect(merges(ws)).toEqual(
      [
        'A1:J1', 'A2:J2',
        // header area: 5 pairs → rows of 3 and 2, each pair spread evenly over 10 columns
        'A3:B3', 'C3:D3', 'F3:G3', 'I3:J3', 'A4:B4', 'C4:E4', 'F4:G4', 'H4:J4',
        // table header
        'A5:A7', 'B5:G5', 'H5:J5', 'B6:B7', 'C6:C7', 'D6:E6', 'F6:F7', 'G6:G7', 'H6:H7', 'I6:I7', 'J6:J7',
        // footer: 2 pairs
        'A14:B14', 'C14:E14', 'F14:G14', 'H14:J14',
      ].sort(),
    );
    expect(ws.getCell('A1').value).toBe('2026年11月 充值退款汇总');
    expect(ws.getCell('A1').font).toMatchObject({ bold: true, size: 16 });
    const summary = ws.getCell('A2').value as ExcelJS.CellRichTextValue;
    expect(summary.richText.map((r) => [r.text, r.font?.bold ?? false, r.font?.italic ?? false, r.font?.color?.argb ?? null])).toEqual([
      ['口径说明：', true, false, null],
      ['充值金额含', false, false, null],
      ['赠送金额', false, false, 'FFC00000'],
      ['；退款以到账为准。\n数据截至 ', false, false, null],
      ['2026-11-30', false, true, null],
      ['。', false, false, null],
    ]);
    expect(ws.getRow(2).height).toBeGreaterThanOrEqual(30);
    expect(ws.getRow(2).height).toBeLessThanOrEqual(150);
    expect(ws.getCell('A2').alignment).toMatchObject({ wrapText: true, vertical: 'top' });
    expect(rowValues(ws, 3)).toEqual(['油站', '油站', '钓鱼岛', '钓鱼岛', '日期', '2026-11', '2026-11', '操作员', '松林', '松林']);
    expect(ws.getCell('A3').font?.bold).toBe(true);
    expect(rowValues(ws, 4)).toEqual(['班次', '班次', '全天', '全天', '全天', '币种', '币种', 'CNY', 'CNY', 'CNY']);

    expect(rowValues(ws, 5)).toEqual(['来源方式', '充值', '充值', '充值', '充值', '充值', '充值', '退款', '退款', '退款']);
    expect(rowValues(ws, 6)).toEqual(['来源方式', '充值笔数', '付款金额', '其中', '其中', '充值金额', '优惠汇总', '退款笔数', '退款金额', '实退金额']);
    expect(rowValues(ws, 7)).toEqual(['来源方式', '充值笔数', '付款金额', '微信支付', '支付宝', '充值金额', '优惠汇总', '退款笔数', '退款金额', '实退金额']);
    expect(ws.getCell('A6').font?.bold).toBe(true);
    expect(ws.getCell('B5').fill).toMatchObject({ pattern: 'solid', fgColor: { argb: 'FFE2EFDA' } });
    expect(ws.getCell('H5').fill).toMatchObject({ pattern: 'solid', fgColor: { argb: 'FFFCE4D6' } });

    // data: real numbers with the column's Excel format; text stays text
    expect(rowValues(ws, 8)).toEqual(['微信公众号', 100, 5000, 3000, 2000.25, 0, 0.05, 0, 0, 0]);
    expect(rowValues(ws, 13)).toEqual(['其他', 285, 17502.5, 8000, 2000.25, 15000, 0.05, 5, 50, '0012']);
    expect(ws.getCell('B8').numFmt).toBe('0');
    expect(ws.getCell('C8').numFmt).toBe('#,##0.00');
    expect(ws.getCell('G8').numFmt).toBe('0.00%');
    expect(ws.getCell('I8').numFmt).toBe('#,##0.00;[Red]-#,##0.00');
    expect(ws.getCell('J13').type).toBe(ExcelJS.ValueType.String);
    // a formula-looking value is a string cell, never a formula
    expect(ws.getCell('J12').value).toBe('=1+2');
    expect(ws.getCell('J12').type).toBe(ExcelJS.ValueType.String);
    expect(ws.getCell('J12').formula).toBeUndefined();
    // column styles on data cells; the design's default alignment
    expect(ws.getCell('A8').font?.bold).toBe(true);
    expect(ws.getCell('A8').alignment).toMatchObject({ horizontal: 'left' });
    expect(ws.getCell('D8').font?.color?.argb).toBe('FF008000');
    expect(ws.getCell('E8').font?.color?.argb).toBe('FF0000FF');
    expect(ws.getCell('B8').alignment).toMatchObject({ horizontal: 'center', vertical: 'middle' });
    expect(ws.getCell('B8').border?.top?.style).toBe('thin');
    expect(ws.getColumn(1).width).toBe(14);

    // condition styles win over the column's
    expect(['F10', 'F11', 'F12', 'F13'].map((a) => ws.getCell(a).font?.bold ?? false)).toEqual([false, false, true, true]);
    expect(ws.getCell('F12').font?.color?.argb).toBe('FFFF0000');
    const fill = (a: string) => (ws.getCell(a).fill as ExcelJS.FillPattern | undefined)?.fgColor?.argb ?? null;
    expect(['J8', 'J9', 'J10', 'J11', 'J12'].map(fill)).toEqual([null, 'FFFFFF00', 'FFF8CBAD', 'FFFFFF00', null]);
    expect(ws.getCell('J10').font?.bold).toBe(true);

    expect(rowValues(ws, 14)).toEqual(['签名', '签名', null, null, null, '日期', '日期', null, null, null]);
    expect(ws.rowCount).toBe(14);
  });

  it('marks formula-looking text with quotePrefix and writes no formula at all', async () => {
    const src = await source({ total: 3, row: (i) => ({ id: String(i).padStart(6, '0'), card: '6222021234567890123', f: ['=cmd|"/c calc"!A1', '+1', '@SUM(A1)'][i], n: i }) });
    const task = await exportOf({ source_url: src.url });
    const body = await fetchListed(task.files[0]);
    const ws = await readSheet(body);
    expect(rowValues(ws, 1)).toEqual(['id', 'card', 'f', 'n']);
    expect(rowValues(ws, 2)).toEqual(['000000', '6222021234567890123', '=cmd|"/c calc"!A1', 0]);
    expect(ws.getCell('C3').value).toBe('+1');
    for (const a of ['A2', 'B2', 'C2', 'C3', 'C4']) expect(ws.getCell(a).type).toBe(ExcelJS.ValueType.String);
    expect(ws.getCell('D2').type).toBe(ExcelJS.ValueType.Number);
    const sheetXml = (await zipEntries(body)).get('xl/worksheets/sheet1.xml')!.toString('utf8');
    expect(sheetXml).not.toMatch(/<f[ >]/);
    const stylesXml = (await zipEntries(body)).get('xl/styles.xml')!.toString('utf8');
    const xfs = [...stylesXml.matchAll(/<xf [^>]*>/g)].map((m) => m[0]).slice(1);
    const styleOf = (cell: string) => Number(new RegExp(`<c r="${cell}" s="(\\d+)"`).exec(sheetXml)![1]);
    expect(xfs[styleOf('C2')]).toContain('quotePrefix="1"');
    expect(xfs[styleOf('A2')]).not.toContain('quotePrefix');
  });

  it('takes the template and header from the source first answer over the task', async () => {
    const src = await source({
      total: 2,
      row: (i) => ({ a: i, b: `b${i}` }),
      firstExtras: { template: [{ name: 'b', title: 'B from source' }], header: [{ 门店: '徐汇' }, { 日期: '2026-11-03', 人: '张三' }] },
    });
    const task = await exportOf({ source_url: src.url, template: [{ name: 'a', title: 'A from task' }], header: { ignored: 'yes' } });
    const ws = await readSheet(await fetchListed(task.files[0]));
    // two-dimensional header: laid out by its own rows (1 pair, then 2) over the 1-column width
    expect(rowValues(ws, 1)).toEqual(['门店：徐汇']);
    expect(rowValues(ws, 2)).toEqual(['日期：2026-11-03']);
    expect(rowValues(ws, 3)).toEqual(['人：张三']);
    expect(rowValues(ws, 4)).toEqual(['B from source']);
    expect(rowValues(ws, 5)).toEqual(['b0']);
  });
});

describe('Excel exports without rows', () => {
  it('writes the title and table header for an empty export, and a valid sheet even without columns', async () => {
    const src = await source({ total: 0 });
    const withTemplate = await exportOf({ source_url: src.url, title: '空表', template: [{ name: 'a', title: 'A' }, { name: 'b', title: 'B' }] });
    expect(withTemplate.files.map((f: { rows: number }) => f.rows)).toEqual([0]);
    const ws = await readSheet(await fetchListed(withTemplate.files[0]));
    expect(merges(ws)).toEqual(['A1:B1']);
    expect([rowValues(ws, 1), rowValues(ws, 2)]).toEqual([['空表', '空表'], ['A', 'B']]);
    expect(ws.rowCount).toBe(2);
    const bare = await exportOf({ source_url: src.url, title: '空表' });
    const body = await fetchListed(bare.files[0]);
    expect((await zipEntries(body)).get('xl/worksheets/sheet1.xml')!.toString('utf8')).not.toContain('<cols>');
    expect((await readSheet(body)).getCell('A1').value).toBe('空表');
  });
});

describe('Excel on the synchronous path', () => {
  it('answers a small excel export with the workbook itself', async () => {
    const src = await source({ total: 3, row: (i) => ({ id: i, 名称: `商品 ${i}` }) });
    const res = await fetch(`${env.base}/v1/tasks/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ operator_id: 'op-1', type: 'xlsx', source_url: src.url, file_name: '商品', title: '商品' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('商品.xlsx')}`);
    const ws = await readSheet(Buffer.from(await res.arrayBuffer()));
    expect(rowValues(ws, 1)).toEqual(['商品', '商品']);
    expect(rowValues(ws, 2)).toEqual(['id', '名称']);
    expect(rowValues(ws, 4)).toEqual([1, '商品 1']);
  });
});
