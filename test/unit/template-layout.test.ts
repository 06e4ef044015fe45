import { describe, expect, it } from 'vitest';
import { autoRows, layoutArea, parseArea, type Pair } from '../../domain/formats/template/areas.js';
import { htmlToRuns } from '../../domain/formats/template/html.js';
import { areaWidth, buildLayout } from '../../domain/formats/template/layout.js';
import { parseTemplate, type Template } from '../../domain/formats/template/template.js';
import { dateSerial, numericText, toCell } from '../../domain/formats/template/values.js';
import { rechargeTemplate } from '../support/templates.js';

function template(raw: unknown): Template {
  const t = parseTemplate(raw);
  if (!t.ok) throw new Error(JSON.stringify(t.issues));
  return t.template;
}

const pairs = (n: number): Pair[] => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));

describe('column tree → table header', () => {
  it('merges the design example: groups over their leaves, leaves down to the last header row', () => {
    const layout = buildLayout(template(rechargeTemplate), []);
    expect(layout.headerRows).toBe(3);
    expect(layout.columns.map((c) => c.key)).toEqual([
      'source', 'recharge_num', 'pay_money', 'wechat', 'alipay', 'recharge_money', 'reduction', 'refund_num', 'refund_money', 'real_refund_money',
    ]);
    const cells = layout.headerCells.map((h) => [h.title, h.row, h.col, h.rows, h.cols]);
    expect(cells).toEqual([
      ['来源方式', 0, 0, 3, 1],
      ['充值', 0, 1, 1, 6],
      ['退款', 0, 7, 1, 3],
      ['充值笔数', 1, 1, 2, 1],
      ['付款金额', 1, 2, 2, 1],
      ['其中', 1, 3, 1, 2],
      ['充值金额', 1, 5, 2, 1],
      ['优惠汇总', 1, 6, 2, 1],
      ['退款笔数', 1, 7, 2, 1],
      ['退款金额', 1, 8, 2, 1],
      ['实退金额', 1, 9, 2, 1],
      ['微信支付', 2, 3, 1, 1],
      ['支付宝', 2, 4, 1, 1],
    ]);
    expect(areaWidth(layout)).toBe(10);
  });

  it('drops unmapped leaves and empty groups; name alone is the title', () => {
    const layout = buildLayout(template([{ name: 'a' }, { name: '_', title: 'x' }, { title: 'g', children: [{ title: 'no name' }] }]), []);
    expect(layout.columns.map((c) => [c.key, c.title])).toEqual([['a', 'a']]);
  });

  it('uses the first row keys as a flat header without a template', () => {
    const layout = buildLayout(null, [{ key: 'id', title: 'id' }, { key: 'n', title: 'n' }]);
    expect(layout.headerRows).toBe(1);
    expect(layout.headerCells.map((h) => h.title)).toEqual(['id', 'n']);
  });

  it('gives a row tree its columns under the _row_header leaf, or first when there is none', () => {
    const rows = [{ title: 'A', children: [{ name: 'a1' }, { name: 'a2' }] }, { name: 'b', title: 'B' }];
    const withLeaf = buildLayout(template({ ceil: [{ name: 'x' }, { name: '_row_header', title: '渠道' }], row: rows }), []);
    expect(withLeaf.rowLevels).toBe(2);
    expect(withLeaf.columns.map((c) => c.key ?? `row${c.rowLevel}`)).toEqual(['x', 'row0', 'row1']);
    expect(withLeaf.headerCells.find((h) => h.title === '渠道')).toMatchObject({ col: 1, cols: 2 });
    expect(withLeaf.rowLeaves.map((l) => l.path.map((p) => p.title))).toEqual([['A', 'a1'], ['A', 'a2'], ['B']]);
    const without = buildLayout(template({ ceil: [{ name: 'x' }], row: rows }), []);
    expect(without.columns.map((c) => c.key ?? `row${c.rowLevel}`)).toEqual(['row0', 'row1', 'x']);
  });

  it('caps the area width at 20 columns', () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ name: `c${i}` }));
    expect(areaWidth(buildLayout(template(many), []))).toBe(20);
  });
});

describe('template validation', () => {
  it('reports each bad field with its path', () => {
    const r = parseTemplate([{ name: 'a', children: [{ name: 'b', type: 'money', condition_style: [{ condition: '>= or', color: 'red' }] }, { color: 'pink' }] }]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => i.path.join('.'))).toEqual(['0.children.0.condition_style.0.condition', '0.children.1.color', '0.children.1.name']);
  });

  it('limits depth, nodes and columns before walking the tree', () => {
    let deep: Record<string, unknown> = { name: 'leaf' };
    for (let i = 0; i < 5000; i++) deep = { title: `t${i}`, children: [deep] };
    expect(parseTemplate([deep])).toMatchObject({ ok: false, issues: [{ message: 'is nested deeper than 8 levels' }] });
    const wide = Array.from({ length: 2001 }, (_, i) => ({ name: `c${i}` }));
    expect(parseTemplate(wide)).toMatchObject({ ok: false, issues: [{ message: 'has more than 2000 nodes' }] });
    const cols = Array.from({ length: 1001 }, (_, i) => ({ name: `c${i}` }));
    expect(parseTemplate(cols)).toMatchObject({ ok: false, issues: [{ message: 'has 1001 columns; at most 1000' }] });
  });

  it('normalises colours and accepts the design spellings', () => {
    const t = template([{ name: 'a', color: 'red', bg_color: true, 'v-align': 'bottom' }, { name: 'b', color: '#00ff00', bg_color: 'FF123456', valign: 'top' }]);
    expect(t.ceil[0]).toMatchObject({ color: 'FFFF0000', bg_color: 'FFFFF2CC', 'v-align': 'bottom' });
    expect(t.ceil[1]).toMatchObject({ color: 'FF00FF00', bg_color: 'FF123456', 'v-align': 'top' });
  });
});

describe('header and footer areas', () => {
  it('lays a flat list out at most 4 a row, pairs x 2 <= width, the shorter row last', () => {
    expect(autoRows(pairs(5), 20).map((r) => r.length)).toEqual([3, 2]);
    expect(autoRows(pairs(8), 20).map((r) => r.length)).toEqual([4, 4]);
    expect(autoRows(pairs(9), 20).map((r) => r.length)).toEqual([3, 3, 3]);
    expect(autoRows(pairs(3), 20).map((r) => r.length)).toEqual([3]);
    expect(autoRows(pairs(5), 6).map((r) => r.length)).toEqual([3, 2]);
    expect(autoRows(pairs(5), 4).map((r) => r.length)).toEqual([2, 2, 1]);
    expect(autoRows(pairs(3), 1).map((r) => r.length)).toEqual([1, 1, 1]);
  });

  it('spreads each row evenly over the width, key then value', () => {
    const rows = layoutArea({ kind: 'flat', pairs: pairs(3) }, 10);
    expect(rows).toEqual([
      [
        { col: 0, span: 2, text: 'k0', role: 'key' },
        { col: 2, span: 2, text: 'v0', role: 'value' },
        { col: 4, span: 1, text: 'k1', role: 'key' },
        { col: 5, span: 2, text: 'v1', role: 'value' },
        { col: 7, span: 1, text: 'k2', role: 'key' },
        { col: 8, span: 2, text: 'v2', role: 'value' },
      ],
    ]);
  });

  it('keeps a two-dimensional array row by row (the design PHP example)', () => {
    const a = parseArea([{ 油站: '钓鱼岛', 日期: '4月3日' }, { 操作员: '松林' }]);
    expect(a.ok).toBe(true);
    if (!a.ok) return;
    const rows = layoutArea(a.area, 8);
    expect(rows.map((r) => r.map((c) => [c.text, c.col, c.span]))).toEqual([
      [['油站', 0, 2], ['钓鱼岛', 2, 2], ['日期', 4, 2], ['4月3日', 6, 2]],
      [['操作员', 0, 4], ['松林', 4, 4]],
    ]);
    const nested = parseArea([[{ a: 1 }, { b: 2 }], [{ c: 3 }]]);
    expect(nested.ok && layoutArea(nested.area, 4).map((r) => r.length)).toEqual([4, 2]);
  });

  it('writes key and value in one cell when a pair has one column', () => {
    const rows = layoutArea({ kind: 'flat', pairs: pairs(2) }, 1);
    expect(rows).toEqual([[{ col: 0, span: 1, text: 'k0：v0', role: 'pair' }], [{ col: 0, span: 1, text: 'k1：v1', role: 'pair' }]]);
  });

  it('refuses what is not pairs', () => {
    expect(parseArea('text')).toMatchObject({ ok: false, message: expect.stringMatching(/key\/value pairs/) });
    expect(parseArea(Object.fromEntries(pairs(101).map((p) => [p.key, p.value])))).toMatchObject({ ok: false, message: 'has 101 pairs; at most 100' });
  });
});

describe('values', () => {
  it('keeps long ids, leading zeros and formulas as text', () => {
    expect(toCell('0012', 'number')).toEqual({ t: 's', v: '0012' });
    expect(toCell('6222021234567890123', 'number')).toEqual({ t: 's', v: '6222021234567890123' });
    expect(toCell('=SUM(A1:A2)', 'money')).toEqual({ t: 's', v: '=SUM(A1:A2)' });
    expect(toCell('12', undefined)).toEqual({ t: 's', v: '12' });
    expect(toCell(12, 'string')).toEqual({ t: 's', v: '12' });
  });

  it('turns numeric text into numbers for numeric types', () => {
    expect(numericText('1,234.50')).toBe(1234.5);
    expect(numericText('-0.5')).toBe(-0.5);
    expect(numericText('1e3')).toBe(1000);
    expect(toCell('12.5%', 'percent')).toEqual({ t: 'n', v: 0.125 });
    expect(toCell(0.3, 'percent')).toEqual({ t: 'n', v: 0.3 });
    expect(toCell('abc', 'integer')).toEqual({ t: 's', v: 'abc' });
    expect(toCell(null, 'integer')).toBeNull();
  });

  it('reads dates as written into Excel serials', () => {
    expect(dateSerial('2026-11-03')).toBe(46329);
    expect(dateSerial('2026/11/03 12:00')).toBe(46329.5);
    expect(dateSerial('2026-11-03T06:00:00Z')).toBe(46329.25);
    expect(dateSerial('2026-02-30')).toBeNull();
    expect(dateSerial('1899-01-01')).toBeNull();
    expect(toCell('not a date', 'date')).toEqual({ t: 's', v: 'not a date' });
    expect(toCell(Date.UTC(2026, 10, 3), 'date')).toEqual({ t: 'n', v: 46329 });
    expect(toCell(Date.UTC(2026, 10, 3) / 1000, 'datetime')).toEqual({ t: 'n', v: 46329 });
  });
});

describe('summary html', () => {
  it('maps b/strong, i, br, p and colours to runs', () => {
    const runs = htmlToRuns('<p><b>注意</b>：金额<span style="color: #f00">含税</span></p><p>第二行<br/><i>斜体</i> <font color="blue">蓝</font> &amp; <strong>粗</strong></p><script>x</script>');
    expect(runs).toEqual([
      { text: '注意', bold: true },
      { text: '：金额' },
      { text: '含税', color: 'FFFF0000' },
      { text: '\n第二行\n' },
      { text: '斜体', italic: true },
      { text: ' ' },
      { text: '蓝', color: 'FF0000FF' },
      { text: ' & ' },
      { text: '粗', bold: true },
    ]);
  });

  it('keeps the line breaks of plain text', () => {
    expect(htmlToRuns('line 1\nline 2  spaced')).toEqual([{ text: 'line 1\nline 2  spaced' }]);
  });
});
