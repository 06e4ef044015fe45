// Charts in exported workbooks (`charts` on a task or a sheet), read back by outside readers:
// openpyxl reads every value exactly and finds each chart over its own part's rows; LibreOffice
// converts a part to PDF, whose text holds the chart's title, axis and series names.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithProject, type TestEnv } from '../support/env.js';
import { pdfText, toPdf } from '../support/libreoffice.js';
import { readWorkbookOutside } from '../support/pyreaders.js';
import { sourcePool } from '../support/source-server.js';
import { fetchListed, zipEntries } from '../support/xlsx.js';

let env: TestEnv;
let key: string;
let dir: string;
const { source, closeSources } = sourcePool();

const submit = (body: Record<string, unknown>) => env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'op-1', type: 'excel', ...body } });

beforeAll(async () => {
  ({ env, key } = await startWithProject({}, { source_hosts: ['127.0.0.1'], max_running_tasks: 10 }));
  dir = await mkdtemp(join(tmpdir(), 'dc-charts-e2e-'));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A tree header: two header rows, amount and count under "Figures". */
const salesTemplate = [
  { name: 'month', title: 'Month' },
  { title: 'Figures', children: [{ name: 'amount', title: 'Amount', type: 'money' }, { name: 'count', title: 'Orders', type: 'integer' }] },
];
const salesRow = (i: number) => ({ month: `M${String(i + 1).padStart(2, '0')}`, amount: 1000 + ((i * 37) % 11) * 125.5, count: 10 + (i % 7) });
const salesCharts = [
  { type: 'column', title: 'Revenue by month', category: 'month', series: ['amount', 'count'], place: 'right' },
  { type: 'line', title: 'Amount trend', category: 'month', series: ['amount'], place: 'below' },
  { type: 'pie', title: 'Order share', category: 'month', series: ['count'], place: 'sheet' },
];

/** Row headers: two levels of row titles before the data columns. */
const channelTemplate = {
  row: [
    { title: 'Online', children: [{ name: 'wechat', title: 'WeChat' }, { name: 'alipay', title: 'Alipay' }] },
    { name: 'cash', title: 'Cash' },
  ],
  ceil: [{ name: '_row_header', title: 'Channel' }, { name: 'amount', title: 'Takings', type: 'money' }],
};
const groups = [[{ amount: 10 }, { amount: 20 }], [{ amount: 7 }], [{ amount: 100 }, { amount: 200 }, { amount: 50 }]];

type Listed = { name: string; rows: number; url: string; bytes: number; sha256: string };

async function saved(file: Listed): Promise<string> {
  const path = join(dir, file.name);
  await writeFile(path, await fetchListed(file));
  return path;
}

describe('charts refused at submission', () => {
  it('answers 422 chart_column_unknown naming the field when a chart names no column of the template', async () => {
    const res = await submit({ source_url: 'http://127.0.0.1:9/x', template: salesTemplate, charts: [{ type: 'line', category: 'month', series: ['amount', 'amuont'] }] });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'chart_column_unknown', details: [{ field: 'charts.0.series.1' }] });
    expect(res.json.error.message).toBe('charts.0.series.1: names no column of the table: "amuont" (its columns: month, amount, count)');
  });

  it('checks each sheet against its own template', async () => {
    const res = await submit({
      sheets: [
        { source_url: 'http://127.0.0.1:9/a', template: salesTemplate, charts: [{ type: 'bar', category: 'month', series: ['count'] }] },
        { source_url: 'http://127.0.0.1:9/b', template: channelTemplate, charts: [{ type: 'bar', category: 'month', series: ['amount'] }] },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'chart_column_unknown', details: [{ field: 'sheets.1.charts.0.category' }] });
  });

  it('refuses charts on another type, nine charts, a pie of two columns and an unknown place', async () => {
    const chart = { type: 'column', category: 'month', series: ['amount'] };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'csv', charts: [chart] }, 'charts'],
      [{ charts: Array(9).fill(chart) }, 'charts'],
      [{ charts: [{ ...chart, type: 'pie', series: ['amount', 'count'] }] }, 'charts.0.series'],
      [{ charts: [{ ...chart, place: 'left' }] }, 'charts.0.place'],
    ];
    for (const [body, field] of cases) {
      const res = await submit({ source_url: 'http://127.0.0.1:9/x', ...body });
      expect(res.status, field).toBe(422);
      expect(res.json.error.code).toBe('validation_failed');
      expect(res.json.error.details[0].field).toBe(field);
    }
  });
});

describe('a workbook with charts', () => {
  it('fails the task chart_column_unknown when the source decides the columns and a chart names another', async () => {
    const src = await source({ total: 3, row: salesRow });
    const res = await submit({ source_url: src.url, charts: [{ type: 'column', category: 'month', series: ['revenue'] }] });
    expect(res.status).toBe(202);
    const task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('failed');
    expect(task.error).toMatchObject({ code: 'chart_column_unknown' });
    expect(task.error.message).toContain('charts.0.series.0 names no column of the table: "revenue" (its columns: month, amount, count)');
    // Found at the probe: no page of rows was asked for (docs/excel.md#charts).
    expect(src.requests.every((r) => r.pageSize === 1 && r.page === 0)).toBe(true);
    expect(src.requests.length).toBeGreaterThan(0);
  });

  it("previews the charts over the preview rows, named by the source's template; a name it lacks is the request's fault, 422", async () => {
    const src = await source({ total: 300, row: salesRow, firstExtras: { template: salesTemplate } });
    const preview = (series: string[]) =>
      fetch(`${env.base}/v1/tasks/preview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ operator_id: 'op-1', type: 'excel', source_url: src.url, rows: 12, charts: [{ type: 'area', title: 'Amount', category: 'month', series, place: 'below' }] }),
      });
    const res = await preview(['amount']);
    expect(res.status).toBe(200);
    const parts = await zipEntries(Buffer.from(await res.arrayBuffer()));
    // Two header rows, then the 12 preview rows.
    expect(parts.get('xl/charts/chart1.xml')!.toString()).toContain("<c:val><c:numRef><c:f>'Sheet1'!$B$3:$B$14</c:f>");
    expect(parts.get('xl/charts/chart1.xml')!.toString()).toContain('<c:areaChart>');

    const refused = await preview(['revenue']);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({ code: 'chart_column_unknown', message: 'charts.0.series.0 names no column of the table: "revenue" (its columns: month, amount, count)' });
  });

  it('charts each split file over its own rows, below a tree header and beside row titles; openpyxl reads the data exactly, LibreOffice draws the charts', async () => {
    const sales = await source({ total: 25, row: salesRow });
    const channels = await source({ total: groups.length, row: (i) => groups[i] as never });
    const res = await submit({
      file_name: 'charts',
      max_file_rows: 10,
      page_size: 100,
      sheets: [
        { source_url: sales.url, name: 'Sales', title: 'Sales 2026', template: salesTemplate, charts: salesCharts },
        { source_url: channels.url, name: 'Channels', template: channelTemplate, charts: [{ type: 'bar', title: 'Takings by channel', category: '__row__', series: ['amount'] }] },
      ],
    });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    const task = await env.waitForTask(res.json.task_id, key, undefined, 120_000);
    expect(task.error).toBeNull();
    const files = (task.files as Listed[]).filter((f) => f.name.endsWith('.xlsx'));
    // Sales: 10, 10, 5 rows; the channels' 6 rows start in the third file and continue in a fourth.
    expect(files.map((f) => f.rows)).toEqual([10, 10, 10, 1]);

    const books = await Promise.all(files.map(async (f) => readWorkbookOutside(await saved(f))));
    expect(books.map((b) => b.map((s) => `${s.kind}:${s.name}`))).toEqual([
      ['worksheet:Sales', 'chartsheet:Order share'],
      ['worksheet:Sales (2)', 'chartsheet:Order share'],
      ['worksheet:Sales (3)', 'chartsheet:Order share', 'worksheet:Channels'],
      ['worksheet:Channels (2)'],
    ]);

    // Every value exactly, in order, across the parts: title, two header rows, then the rows.
    const salesSheets = books.map((b) => b.find((s) => s.name.startsWith('Sales'))).filter((s) => s !== undefined);
    for (const s of salesSheets) expect(s.rows.slice(0, 3)).toEqual([['Sales 2026', null, null], ['Month', 'Figures', null], [null, 'Amount', 'Orders']]);
    const dataRows = salesSheets.flatMap((s) => s.rows.slice(3));
    expect(dataRows).toEqual(Array.from({ length: 25 }, (_, i) => Object.values(salesRow(i))));

    // Each part's charts over its own rows, 4 to 3 + its row count.
    salesSheets.forEach((s, p) => {
      const last = 3 + files[p]!.rows - (p === 2 ? 5 : 0);
      const q = `'${s.name}'`;
      const [column, line] = s.charts;
      expect(column).toMatchObject({ kind: 'BarChart', title: 'Revenue by month', anchor: [4, 1], axes: { x_axis: 'Month' } });
      expect(column!.series).toEqual([
        { name: `${q}!$B$3`, category: `${q}!$A$4:$A$${last}`, values: `${q}!$B$4:$B$${last}` },
        { name: `${q}!$C$3`, category: `${q}!$A$4:$A$${last}`, values: `${q}!$C$4:$C$${last}` },
      ]);
      expect(line).toMatchObject({ kind: 'LineChart', title: 'Amount trend', axes: { x_axis: 'Month', y_axis: 'Amount' } });
      expect(line!.series[0]!.values).toBe(`${q}!$B$4:$B$${last}`);
      const pie = books[p]!.find((x) => x.kind === 'chartsheet')!.charts[0]!;
      expect(pie).toMatchObject({ kind: 'PieChart', title: 'Order share', series: [{ values: `${q}!$C$4:$C$${last}` }] });
    });

    // Row titles: one header row, the data from row 2, the category both row-title columns (a multi-level axis).
    const [channelsA, channelsB] = [books[2]!.find((s) => s.name === 'Channels')!, books[3]![0]!];
    expect(channelsA.rows).toEqual([['Channel', null, 'Takings'], ['Online', 'WeChat', 10], [null, null, 20], [null, 'Alipay', 7], ['Cash', null, 100], [null, null, 200]]);
    expect(channelsA.charts[0]!.series).toEqual([{ name: "'Channels'!$C$1", category: "'Channels'!$A$2:$B$6", values: "'Channels'!$C$2:$C$6" }]);
    // One row: a one-cell range.
    expect(channelsB.charts[0]!.series[0]!.values).toBe("'Channels (2)'!$C$2");

    // LibreOffice draws the third part's charts: titles, axis titles, series names (legends) and categories.
    const text = await pdfText(await toPdf(join(dir, files[2]!.name), dir));
    for (const words of ['Sales 2026', 'Revenue by month', 'Amount trend', 'Order share', 'Takings by channel']) expect(text, words).toContain(words);
    // Column titles are drawn again by the charts: the table header once, then axis titles and legends.
    const times = (w: string) => text.split(w).length - 1;
    expect(times('Month')).toBeGreaterThanOrEqual(3); // header, both charts' category axes
    expect(times('Orders')).toBeGreaterThanOrEqual(2); // header, the column chart's legend
    expect(times('Takings')).toBeGreaterThanOrEqual(4); // header, title, value axis, legend
    expect(times('WeChat')).toBeGreaterThanOrEqual(2); // row title, the bar chart's category
  }, 180_000);
});
