// Renders a workbook of two sheets with the real writer (writeSheets, as a task with `sheets` is
// rendered), prints it with LibreOffice (one page per sheet, the sheet's name in the page header)
// and stacks the two pages into docs/excel-sheets-sample.png:
//   node --import tsx scripts/excel-sheets-sample.ts        (needs libreoffice-calc and poppler-utils)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { parseArea } from '../domain/formats/template/areas.js';
import { buildLayout } from '../domain/formats/template/layout.js';
import { parseTemplate } from '../domain/formats/template/template.js';
import { writeSheets } from '../domain/formats/xlsx/workbook.js';
import { styledRechargeTemplate } from '../test/support/templates.js';

const SOURCES = ['微信公众号', '支付宝生活号', '小程序', 'APP', '油站POS', '加油卡'];
const recharge = (i: number) => ({
  source: SOURCES[i],
  recharge_num: 180 + ((i * 137) % 420),
  pay_money: 52_000 + ((i * 7_919.37) % 41_000),
  wechat: 30_000 + ((i * 3_331.5) % 20_000),
  alipay: 12_000 + ((i * 2_017.25) % 9_000),
  recharge_money: [58_200, 9_350.5, 23_480, 7_990, 15_600, 4_210][i],
  reduction: [0.05, 0.032, 0.041, 0.06, 0.025, 0.01][i],
  refund_num: (i * 3) % 7,
  refund_money: [1_200, 0, -35.5, 460, 80, 0][i],
  real_refund_money: [1_150, 0, 35.5, 420, 78.2, 0][i],
});
const refund = (i: number) => ({
  order: `R2026110${String(i + 1).padStart(3, '0')}`,
  at: `2026-11-${String(3 + i).padStart(2, '0')} ${String(9 + i).padStart(2, '0')}:1${i}:00`,
  amount: [120, 35.5, 2_300, 80, 460, 12, 999, 58][i],
  status: ['已退款', '已退款', '处理中', '已退款', '失败', '已退款', '处理中', '已退款'][i],
});
const refundTemplate = [
  { name: 'order', title: '退款单号', width: 16 },
  { name: 'at', title: '申请时间', type: 'datetime' },
  { title: '退款', children: [{ name: 'amount', title: '金额', type: 'money', condition_style: [{ condition: '>= 1000', color: 'red', bold: true }] }, { name: 'status', title: '状态', condition_style: [{ condition: "= '失败'", bg_color: 'yellow' }] }] },
];

const parsed = (raw: unknown) => {
  const t = parseTemplate(raw);
  if (!t.ok) throw new Error('the sample template is invalid');
  return t.template;
};
const area = (raw: unknown) => {
  const a = parseArea(raw);
  if (!a.ok) throw new Error('the sample area is invalid');
  return a.area;
};
async function* pages(rows: unknown[]) {
  yield rows;
}

const dir = mkdtempSync(join(tmpdir(), 'excel-sheets-'));
const [part] = await writeSheets(
  [
    {
      name: '充值汇总',
      // The design's tree without its refund group: each sheet then fits one printed page.
      layout: buildLayout(parsed(styledRechargeTemplate.slice(0, 2)), []),
      title: '2026年11月 充值汇总',
      header: area({ 油站: '钓鱼岛一号站', 统计月份: '2026-11', 操作员: '松林' }),
      pages: pages(SOURCES.map((_, i) => recharge(i))),
    },
    {
      name: '退款明细',
      layout: buildLayout(parsed(refundTemplate), []),
      title: '2026年11月 退款明细',
      summary: '金额 ≥ 1,000 <b>标红</b>；<span style="color:#C00000">失败</span>的退款底色标黄。',
      footer: area([{ 制表人: '', 复核人: '' }]),
      pages: pages(Array.from({ length: 8 }, (_, i) => refund(i))),
    },
  ],
  { maxRows: 800_000, maxBytes: 10 * 1024 * 1024, pathFor: () => join(dir, 'excel-sheets-sample.xlsx'), mtime: new Date('2026-11-30T00:00:00Z') },
);
console.log(`wrote ${part!.path} (${part!.bytes} bytes)`);

execFileSync('soffice', ['--headless', '--convert-to', 'pdf', '--outdir', dir, part!.path], { stdio: 'inherit' });

/** One page of the PDF as raw RGB (pdftoppm's PPM), cropped to the top left where the sheet is. */
function page(n: number, top: number, width: number, height: number): { width: number; height: number; rgb: Buffer } {
  const out = join(dir, `page-${n}`);
  execFileSync('pdftoppm', ['-r', '110', '-f', String(n), '-l', String(n), '-x', '40', '-y', String(top), '-W', String(width), '-H', String(height), '-singlefile', join(dir, 'excel-sheets-sample.pdf'), out]);
  const ppm = readFileSync(`${out}.ppm`);
  // P6 header: magic, width, height, max value, each followed by one whitespace byte.
  const fields = ppm.subarray(0, 64).toString('latin1').split(/\s+/, 4);
  const header = fields.join(' ').length + 1;
  return { width: Number(fields[1]), height: Number(fields[2]), rgb: ppm.subarray(header) };
}

/** A PNG of the pages one under the other, a grey rule between them (zlib and a CRC are all PNG needs). */
function stackedPng(pages: Array<{ width: number; height: number; rgb: Buffer }>): Buffer {
  const width = Math.max(...pages.map((p) => p.width));
  const rows: Buffer[] = [];
  const blank = (shade: number) => Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, shade)]);
  pages.forEach((p, i) => {
    if (i > 0) for (let r = 0; r < 6; r++) rows.push(blank(r === 2 || r === 3 ? 160 : 255));
    for (let y = 0; y < p.height; y++) {
      const line = Buffer.alloc(1 + width * 3, 255);
      line[0] = 0;
      p.rgb.copy(line, 1, y * p.width * 3, (y + 1) * p.width * 3);
      rows.push(line);
    }
  });
  const height = rows.length;
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

writeFileSync('docs/excel-sheets-sample.png', stackedPng([page(1, 60, 940, 305), page(2, 60, 940, 372)]));
rmSync(dir, { recursive: true, force: true });
console.log('wrote docs/excel-sheets-sample.png');
