// Renders the design's example (recharge/refund template, title, summary, header, footer) with the
// real writer, then, where LibreOffice is installed, to docs/excel-sample.png for the docs:
//   node --import tsx scripts/excel-sample.ts        (needs libreoffice-calc and poppler-utils)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArea } from '../domain/formats/template/areas.js';
import { buildLayout } from '../domain/formats/template/layout.js';
import { parseTemplate } from '../domain/formats/template/template.js';
import { sheetName, writeWorkbook } from '../domain/formats/xlsx/workbook.js';
import { styledRechargeTemplate } from '../test/support/templates.js';

const SOURCES = ['微信公众号', '支付宝生活号', '小程序', 'APP', '油站POS', '加油卡', '积分商城', '其他'];
const row = (i: number) => ({
  source: SOURCES[i],
  recharge_num: 180 + ((i * 137) % 420),
  pay_money: 52_000 + ((i * 7_919.37) % 41_000),
  wechat: 30_000 + ((i * 3_331.5) % 20_000),
  alipay: 12_000 + ((i * 2_017.25) % 9_000),
  recharge_money: [58_200, 9_350.5, 23_480, 7_990, 15_600, 4_210, 12_000, 880][i],
  reduction: [0.05, 0.032, 0.041, 0.06, 0.025, 0.01, 0.07, 0][i],
  refund_num: (i * 3) % 7,
  refund_money: [1_200, 0, -35.5, 460, 80, 0, 2_300, 12][i],
  real_refund_money: [1_150, 0, 35.5, 420, 78.2, 0, 2_210, 12][i],
});

const template = parseTemplate(styledRechargeTemplate);
const header = parseArea({ 油站: '钓鱼岛一号站', 统计月份: '2026-11', 操作员: '松林', 班次: '全天', 币种: '人民币' });
const footer = parseArea([{ 制表人: '', 复核人: '', 日期: '' }]);
if (!template.ok || !header.ok || !footer.ok) throw new Error('the sample template is invalid');

const dir = mkdtempSync(join(tmpdir(), 'excel-sample-'));
const title = '2026年11月 充值退款汇总';
async function* pages() {
  yield Array.from({ length: SOURCES.length }, (_, i) => row(i));
}
const [part] = await writeWorkbook({
  layout: buildLayout(template.template, []),
  title,
  summary:
    '<p><b>口径说明：</b>充值金额含<span style="color:#C00000">赠送金额</span>；退款以实际到账为准。</p>' +
    '<p>充值金额 ≥ 10,000 <b>标红</b>；实退金额按区间着色。数据截至 <i>2026-11-30 23:59</i>。</p>',
  header: header.area,
  footer: footer.area,
  pages: pages(),
  maxRows: 800_000,
  maxBytes: 10 * 1024 * 1024,
  pathFor: () => join(dir, 'excel-sample.xlsx'),
  mtime: new Date('2026-11-30T00:00:00Z'),
  sheetName: sheetName(title),
});
console.log(`wrote ${part!.path} (${part!.bytes} bytes)`);

execFileSync('soffice', ['--headless', '--convert-to', 'pdf', '--outdir', dir, part!.path], { stdio: 'inherit' });
// The sample fills the top left of an A4 landscape page: crop to it.
execFileSync('pdftoppm', ['-png', '-r', '110', '-x', '40', '-y', '80', '-W', '1005', '-H', '460', '-singlefile', join(dir, 'excel-sample.pdf'), join(dir, 'excel-sample')], { stdio: 'inherit' });
renameSync(join(dir, 'excel-sample.png'), 'docs/excel-sample.png');
rmSync(dir, { recursive: true, force: true });
console.log('wrote docs/excel-sample.png');
