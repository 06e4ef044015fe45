// Charts in the streaming workbook writer: the DrawingML of each chart, its cell references
// (below a header tree, beside row titles, per part of a split export) and the package's parts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yauzl from 'yauzl';
import { afterAll, describe, expect, it } from 'vitest';
import { chartProblems, chartsSchema, sheetCharts } from '../../domain/formats/charts.js';
import { chartXml, sheetRef } from '../../domain/formats/xlsx/chart-xml.js';
import { buildLayout } from '../../domain/formats/template/layout.js';
import { parseTemplate, type Template } from '../../domain/formats/template/template.js';
import { writeSheets } from '../../domain/formats/xlsx/workbook.js';
import { DomainError } from '../../domain/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'dc-charts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function template(raw: unknown): Template {
  const t = parseTemplate(raw);
  if (!t.ok) throw new Error(JSON.stringify(t.issues));
  return t.template;
}

/** Two header rows: amount and count under "figures". */
const tree = template([
  { name: 'month', title: 'Month' },
  { title: 'Figures', children: [{ name: 'amount', title: 'Amount', type: 'money' }, { name: 'count', title: 'Count', type: 'integer' }] },
]);
const treeLayout = buildLayout(tree, []);
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ month: `2026-${String((i % 12) + 1).padStart(2, '0')}`, amount: i * 10.5, count: i }));

async function* pagesOf(all: unknown[], size = 7): AsyncGenerator<unknown[]> {
  for (let i = 0; i < all.length; i += size) yield all.slice(i, i + size);
}

function entries(path: string): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const out = new Map<string, string>();
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      zip.on('entry', (e: yauzl.Entry) =>
        zip.openReadStream(e, (err2, s) => {
          if (err2) return reject(err2);
          const chunks: Buffer[] = [];
          s.on('data', (c: Buffer) => chunks.push(c));
          s.on('end', () => {
            out.set(e.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        }),
      );
      zip.on('end', () => resolve(out));
      zip.readEntry();
    });
  });
}

describe('chart requests', () => {
  it('refuses more than eight charts, a pie of two columns, and an unknown type', () => {
    const c = { type: 'column', category: 'month', series: ['amount'] };
    expect(chartsSchema.safeParse(Array(9).fill(c)).success).toBe(false);
    expect(chartsSchema.safeParse([{ ...c, type: 'pie', series: ['amount', 'count'] }]).success).toBe(false);
    expect(chartsSchema.safeParse([{ ...c, type: 'radar' }]).success).toBe(false);
    expect(chartsSchema.parse([c])[0]!.place).toBe('right');
  });

  it('names each unknown column with where it is and the columns there are', () => {
    const charts = chartsSchema.parse([{ type: 'line', category: 'month', series: ['amount', 'amout'] }]);
    expect(chartProblems(charts, treeLayout)).toEqual([{ path: ['charts', 0, 'series', 1], message: 'names no column of the table: "amout" (its columns: month, amount, count)' }]);
    expect(() => sheetCharts(charts, treeLayout, 'sheet 2 ("Refunds")')).toThrow(DomainError);
    expect(() => sheetCharts(charts, treeLayout)).toThrow(/charts\.0\.series\.1 names no column of the table: "amout"/);
  });

  it('resolves names to physical columns, __row__ to all the row-title columns', () => {
    const rowsTemplate = template({ ceil: [{ name: '__row__', title: 'Region' }, { name: 'amount', title: 'Amount' }], row: [{ title: 'North', children: [{ name: 'n1', title: 'N1' }] }] });
    const layout = buildLayout(rowsTemplate, []);
    const [chart] = sheetCharts([{ type: 'bar', category: '__row__', series: ['amount'] }], layout);
    expect(chart).toMatchObject({ category: 0, categoryTo: 1, series: [2], place: 'right' });
  });
});

describe('chart XML', () => {
  const cells = { sheet: "Bob's", firstRow: 3, lastRow: 102, titleRow: () => 2, columns: treeLayout.columns };

  it('quotes the sheet name in references', () => {
    expect(sheetRef("Bob's", 1, 3, 1, 102)).toBe("'Bob''s'!$B$4:$B$103");
    expect(sheetRef('S', 0, 0)).toBe("'S'!$A$1");
  });

  it('a column chart: clustered bars over the category and value ranges, series named by their header cells', () => {
    const xml = chartXml({ type: 'column', title: 'Amount & count', place: 'right', category: 0, categoryTo: 0, series: [1, 2] }, cells);
    expect(xml).toContain('<c:barDir val="col"/>');
    expect(xml).toContain('<a:t>Amount &amp; count</a:t>');
    expect(xml).toContain("<c:cat><c:strRef><c:f>'Bob''s'!$A$4:$A$103</c:f></c:strRef></c:cat>");
    expect(xml).toContain("<c:val><c:numRef><c:f>'Bob''s'!$B$4:$B$103</c:f></c:numRef></c:val>");
    expect(xml).toContain("<c:f>'Bob''s'!$C$3</c:f><c:strCache><c:ptCount val=\"1\"/><c:pt idx=\"0\"><c:v>Count</c:v>");
    // Two series: the value axis has no single name; the category axis is named by its column.
    expect(xml.match(/<c:title>/g)).toHaveLength(2);
    expect(xml).toContain('<a:t>Month</a:t>');
    expect(xml).not.toContain('numCache');
  });

  it('each type its own plot element; a pie has no axes, a bar chart lies on its side', () => {
    const of = (type: 'bar' | 'line' | 'pie' | 'area') => chartXml({ type, title: undefined, place: 'below', category: 0, categoryTo: 0, series: [1] }, cells);
    expect(of('bar')).toContain('<c:barDir val="bar"/>');
    expect(of('bar')).toContain('<c:axPos val="l"/>');
    expect(of('line')).toMatch(/<c:lineChart>.*<c:valAx>/);
    expect(of('area')).toMatch(/<c:areaChart>.*<c:catAx>/);
    expect(of('pie')).toContain('<c:pieChart><c:varyColors val="1"/>');
    expect(of('pie')).not.toContain('<c:catAx>');
    expect(of('line')).toContain('<c:autoTitleDeleted val="1"/>');
    // One series: the value axis carries its name.
    expect(of('line')).toContain('<a:t>Amount</a:t></a:r></a:p></c:rich></c:tx><c:overlay val="0"/></c:title><c:numFmt');
  });
});

describe('a workbook with charts', () => {
  const charts = sheetCharts(
    [
      { type: 'column', title: 'By month', category: 'month', series: ['amount', 'count'], place: 'right' },
      { type: 'line', title: 'Trend', category: 'month', series: ['amount'], place: 'below' },
      { type: 'pie', title: 'Share', category: 'month', series: ['count'], place: 'sheet' },
    ],
    treeLayout,
  );

  it('split into parts, each part charts its own rows below the title and the two header rows', async () => {
    const parts = await writeSheets(
      [{ layout: treeLayout, title: 'Sales', pages: pagesOf(rows(25)), name: 'Sales', charts }],
      { maxRows: 10, maxBytes: 1e9, pathFor: (n) => join(dir, `split-${n}.xlsx`), mtime: new Date(0) },
    );
    expect(parts.map((p) => p.rows)).toEqual([10, 10, 5]);
    const last = await entries(parts[2]!.path);
    // Title in row 1, headers in rows 2-3, data from row 4: 5 rows in the last part.
    const chart1 = last.get('xl/charts/chart1.xml')!;
    expect(chart1).toContain("<c:f>'Sales (3)'!$A$4:$A$8</c:f>");
    expect(chart1).toContain("<c:f>'Sales (3)'!$C$4:$C$8</c:f>");
    expect(chart1).toContain("<c:f>'Sales (3)'!$B$3</c:f>");
    const first = await entries(parts[0]!.path);
    expect(first.get('xl/charts/chart2.xml')).toContain("<c:f>'Sales'!$B$4:$B$13</c:f>");
    expect(first.get('xl/worksheets/sheet1.xml')).toMatch(/<pageSetup orientation="landscape"\/><drawing r:id="rId1"\/><\/worksheet>$/);
    expect(first.get('xl/worksheets/_rels/sheet1.xml.rels')).toContain('Target="../drawings/drawing1.xml"');
    const drawing = first.get('xl/drawings/drawing1.xml')!;
    // Right of the three columns (a column's gap), from the table header (row 2), 18 rows high;
    // below the table, and under the chart right of it when the table is shorter (row 22).
    expect(drawing).toContain('<xdr:from><xdr:col>4</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>1</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from><xdr:to><xdr:col>12</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>19</xdr:row>');
    expect(drawing).toContain('<xdr:from><xdr:col>0</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>21</xdr:row>');
    expect(first.get('xl/drawings/_rels/drawing1.xml.rels')).toContain('Target="../charts/chart2.xml"');
    // The pie on a chart sheet of its own, right after the worksheet.
    expect(first.get('xl/workbook.xml')).toContain('<sheet name="Sales" sheetId="1" r:id="rId1"/><sheet name="Share" sheetId="2" r:id="rId2"/>');
    expect(first.get('xl/_rels/workbook.xml.rels')).toContain('Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chartsheet" Target="chartsheets/sheet2.xml"');
    expect(first.get('xl/chartsheets/sheet2.xml')).toContain('<drawing r:id="rId1"/>');
    expect(first.get('xl/charts/chart3.xml')).toContain('<c:pieChart>');
    const types = first.get('[Content_Types].xml')!;
    for (const part of ['/xl/chartsheets/sheet2.xml', '/xl/drawings/drawing1.xml', '/xl/drawings/drawing2.xml', '/xl/charts/chart1.xml', '/xl/charts/chart3.xml']) {
      expect(types).toContain(`PartName="${part}"`);
    }
  });

  it('charts below a long table start after its last row', async () => {
    const below = charts.filter((c) => c.place === 'below');
    const [part] = await writeSheets([{ layout: treeLayout, pages: pagesOf(rows(40)), name: 'Long', charts: below }], {
      maxRows: 100,
      maxBytes: 1e9,
      pathFor: () => join(dir, 'long.xlsx'),
      mtime: new Date(0),
    });
    const files = await entries(part!.path);
    // Header rows 1-2, data rows 3-42 (0-based 2-41), a gap: the chart from row 44 (0-based 43).
    expect(files.get('xl/drawings/drawing1.xml')).toContain('<xdr:from><xdr:col>0</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>43</xdr:row>');
    expect(files.get('xl/charts/chart1.xml')).toContain("<c:f>'Long'!$B$3:$B$42</c:f>");
  });

  it('split by bytes, no part passes its limit and each charts its own rows', async () => {
    const wide = (i: number) => ({ month: `${i}-${'x'.repeat(40 + (i * 7919) % 200)}`, amount: i * 1.5, count: i });
    const maxBytes = 200_000 + 180_000; // above the writer's pipeline allowance (~180 KB)
    const parts = await writeSheets([{ layout: treeLayout, pages: pagesOf(Array.from({ length: 20_000 }, (_, i) => wide(i)), 500), name: 'Wide', charts }], {
      maxRows: 1e9,
      maxBytes,
      pathFor: (n) => join(dir, `bytes-${n}.xlsx`),
      mtime: new Date(0),
    });
    expect(parts.length).toBeGreaterThan(2);
    // Two header rows: every part's data starts in row 3.
    for (const [i, p] of parts.entries()) {
      expect(p.bytes).toBeLessThanOrEqual(maxBytes);
      const files = await entries(p.path);
      const name = i === 0 ? 'Wide' : `Wide (${i + 1})`;
      expect(files.get('xl/charts/chart1.xml')).toContain(`<c:f>'${name}'!$B$3:$B$${2 + p.rows}</c:f>`);
    }
  });

  it('a chart sheet yields its name to a worksheet that comes later', async () => {
    const pie = sheetCharts([{ type: 'pie', title: 'Refunds', category: 'month', series: ['count'], place: 'sheet' }], treeLayout);
    const [part] = await writeSheets(
      [
        { layout: treeLayout, pages: pagesOf(rows(2)), name: 'Sales', charts: pie },
        { layout: treeLayout, pages: pagesOf(rows(2)), name: 'refunds' },
      ],
      { maxRows: 100, maxBytes: 1e9, pathFor: () => join(dir, 'names.xlsx'), mtime: new Date(0) },
    );
    const book = (await entries(part!.path)).get('xl/workbook.xml')!;
    expect([...book.matchAll(/<sheet name="([^"]+)"/g)].map((m) => m[1])).toEqual(['Sales', 'Refunds ~2', 'refunds']);
  });

  it('an empty sheet has no chart, and a sheet without charts no drawing', async () => {
    const [part] = await writeSheets(
      [
        { layout: treeLayout, pages: pagesOf([]), name: 'Empty', charts },
        { layout: treeLayout, pages: pagesOf(rows(3)), name: 'Plain' },
      ],
      { maxRows: 100, maxBytes: 1e9, pathFor: () => join(dir, 'empty.xlsx'), mtime: new Date(0) },
    );
    const files = await entries(part!.path);
    expect([...files.keys()].filter((k) => /drawing|chart/.test(k))).toEqual([]);
    expect(readFileSync(part!.path).length).toBe(part!.bytes);
  });
});
