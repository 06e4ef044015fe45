// Renders a workbook with charts (a column and a line chart below a table with a two-row header)
// with the real writer, then through LibreOffice to docs/excel-charts-sample.png for docs/excel.md:
//   node --import tsx scripts/excel-charts-sample.ts
// It needs libreoffice-calc (7.4 or later, for the export option below), poppler-utils and a CJK font
// (Debian's fonts-wqy-zenhei or fonts-noto-cjk): without one LibreOffice draws the Chinese as boxes.
// The font is for the picture only; no test needs it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sheetCharts } from '../domain/formats/charts.js';
import { buildLayout } from '../domain/formats/template/layout.js';
import { parseTemplate } from '../domain/formats/template/template.js';
import { writeWorkbook } from '../domain/formats/xlsx/workbook.js';

const template = parseTemplate([
  { name: 'month', title: '月份' },
  { title: '充值', children: [{ name: 'amount', title: '充值金额', type: 'money' }, { name: 'refund', title: '退款金额', type: 'money' }] },
  { name: 'orders', title: '笔数', type: 'integer' },
]);
if (!template.ok) throw new Error('the sample template is invalid');
const layout = buildLayout(template.template, []);
const charts = sheetCharts(
  [
    { type: 'column', title: '充值与退款', category: 'month', series: ['amount', 'refund'], place: 'below' },
    { type: 'line', title: '笔数走势', category: 'month', series: ['orders'], place: 'below' },
  ],
  layout,
);
const row = (i: number) => ({ month: `2026-${String(i + 1).padStart(2, '0')}`, amount: 42_000 + ((i * 7_919) % 23_000), refund: 1_500 + ((i * 1_337) % 4_000), orders: 800 + ((i * 173) % 500) });

/** Refuses to draw the picture with missing-glyph boxes: fontconfig must know a Chinese font. */
function fontCheck() {
  const fonts = execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).trim();
  if (!fonts) throw new Error('no CJK font installed: apt-get install fonts-wqy-zenhei (or fonts-noto-cjk)');
}

fontCheck();
const dir = mkdtempSync(join(tmpdir(), 'excel-charts-sample-'));
async function* pages() {
  yield Array.from({ length: 6 }, (_, i) => row(i));
}
const [part] = await writeWorkbook({
  layout,
  title: '2026 年上半年充值月报',
  charts,
  pages: pages(),
  maxRows: 800_000,
  maxBytes: 10 * 1024 * 1024,
  pathFor: () => join(dir, 'excel-charts-sample.xlsx'),
  mtime: new Date('2026-11-30T00:00:00Z'),
  sheetName: '月报',
});
console.log(`wrote ${part!.path} (${part!.bytes} bytes)`);

// One page for the whole sheet (SinglePageSheets), so the line chart is not cut at a page break.
const pdfFilter = 'pdf:calc_pdf_Export:{"SinglePageSheets":{"type":"boolean","value":"true"}}';
execFileSync('soffice', [`-env:UserInstallation=file://${dir}/profile`, '--headless', '--convert-to', pdfFilter, '--outdir', dir, part!.path], { stdio: 'inherit' });
execFileSync('pdftoppm', ['-png', '-r', '80', '-singlefile', join(dir, 'excel-charts-sample.pdf'), join(dir, 'excel-charts-sample')], { stdio: 'inherit' });
renameSync(join(dir, 'excel-charts-sample.png'), 'docs/excel-charts-sample.png');
rmSync(dir, { recursive: true, force: true });
console.log('wrote docs/excel-charts-sample.png');
