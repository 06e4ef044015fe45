// The xlsx writers measured side by side by bench/xlsx.ts; each runs alone in a child process so
// its peak RSS is its own. Same rows, same columns, same deflate level for all: the product's.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { parseTemplate } from '../domain/formats/template/template.js';
import { buildLayout } from '../domain/formats/template/layout.js';
import { parseArea } from '../domain/formats/template/areas.js';
import { SHEET_LEVEL, XlsxPackage } from '../domain/formats/xlsx/package.js';
import { writeSheets, writeWorkbook } from '../domain/formats/xlsx/workbook.js';
import { colName, esc } from '../domain/formats/xlsx/xml.js';

export const LEVEL = SHEET_LEVEL;
const STATUSES = ['已支付', '已退款', 'pending', 'failed'];

export function row(i: number): Record<string, unknown> {
  return {
    id: i + 1,
    name: `客户 ${i % 5000}`,
    amount: Math.round(i * 137.3) / 100 - 500,
    qty: i % 97,
    rate: (i % 100) / 100,
    day: `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
    created: `2026-11-03 ${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
    status: STATUSES[i % 4],
    code: String(i * 7).padStart(10, '0'),
    note: i % 10 === 0 ? 'a note, with "quotes" & <tags>' : '',
  };
}
const KEYS = Object.keys(row(0));

export const template = [
  { name: 'id', title: '编号', type: 'integer' },
  { name: 'name', title: '客户', align: 'left' },
  {
    title: '金额',
    children: [
      { name: 'amount', title: '金额', type: 'money', condition_style: [{ condition: '< 0', color: 'red', bold: true }] },
      { name: 'qty', title: '数量', type: 'integer' },
      { name: 'rate', title: '比例', type: 'percent' },
    ],
  },
  { name: 'day', title: '日期', type: 'date' },
  { name: 'created', title: '创建时间', type: 'datetime' },
  { name: 'status', title: '状态', condition_style: [{ condition: "in ('failed', '已退款')", bg_color: 'yellow' }] },
  { name: 'code', title: '卡号', type: 'string' },
  { name: 'note', title: '备注', align: 'left' },
];

async function* generated(rows: number, pageSize: number, first = 0): AsyncGenerator<unknown[]> {
  for (let from = first; from < first + rows; from += pageSize) {
    const page = [];
    for (let i = from; i < Math.min(first + rows, from + pageSize); i++) page.push(row(i));
    yield page;
  }
}

/** A minimal streaming writer: inline strings and numbers, no styles, same zip and level. */
export async function minimal(rows: number, out: string, pages?: AsyncIterable<unknown[]>): Promise<number> {
  const pkg = new XlsxPackage({ path: out, stylesXml: MINIMAL_STYLES, level: LEVEL, mtime: new Date(0) });
  pkg.startSheet('Sheet1');
  await pkg.write('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>');
  const letters = KEYS.map((_, i) => colName(i));
  for await (const page of pages ?? generated(rows, 500)) {
    for (const r of page as Record<string, unknown>[]) {
      const rn = String(++minimalRow);
      let x = `<row r="${rn}">`;
      KEYS.forEach((k, c) => {
        const v = r[k];
        if (typeof v === 'number') x += `<c r="${letters[c]}${rn}"><v>${v}</v></c>`;
        else if (v) x += `<c r="${letters[c]}${rn}" t="inlineStr"><is><t>${esc(String(v))}</t></is></c>`;
      });
      const w = pkg.write(`${x}</row>`);
      if (w) await w;
    }
  }
  await pkg.write('</sheetData></worksheet>');
  return (await pkg.close()).bytes;
}
let minimalRow = 0;
const MINIMAL_STYLES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
  '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border/></borders><cellStyleXfs count="1"><xf/></cellStyleXfs><cellXfs count="1"><xf xfId="0"/></cellXfs></styleSheet>';

/** Our writer: the full template (types, formats, borders, two condition styles), title and header area. */
export async function ours(rows: number, out: string, maxBytes: number, pages?: AsyncIterable<unknown[]>): Promise<number> {
  const t = parseTemplate(template);
  if (!t.ok) throw new Error('bad bench template');
  const header = parseArea({ 门店: '上海徐汇', 日期: '2026-11-03', 操作员: '松林' });
  const parts = await writeWorkbook({
    layout: buildLayout(t.template, []),
    title: '订单明细',
    header: header.ok ? header.area : undefined,
    pages: pages ?? generated(rows, 500),
    maxRows: 1_000_000,
    maxBytes,
    pathFor: (n) => `${out}.part${n}.xlsx`,
    level: LEVEL,
    mtime: new Date(0),
    sheetName: 'Sheet1',
  });
  return parts.reduce((s, p) => s + p.bytes, 0);
}

/** Our writer, one workbook of `sheets` sheets sharing the rows, each sheet fed its own pages. */
export async function oursSheets(sheets: Array<AsyncIterable<unknown[]>>, out: string, maxBytes: number): Promise<number> {
  const t = parseTemplate(template);
  if (!t.ok) throw new Error('bad bench template');
  const parts = await writeSheets(
    sheets.map((pages, i) => ({ layout: buildLayout(t.template, []), title: `订单明细 ${i + 1}`, pages, name: `订单 ${i + 1}` })),
    { maxRows: 1_000_000, maxBytes, pathFor: (n) => `${out}.part${n}.xlsx`, level: LEVEL, mtime: new Date(0) },
  );
  return parts.reduce((s, p) => s + p.bytes, 0);
}

/** Staged .ndjson pages as the fetch step leaves them, for the render-from-staging variant. */
export async function stage(rows: number, dir: string, from = 0): Promise<void> {
  await mkdir(dir, { recursive: true });
  let page = 0;
  for await (const p of generated(rows, 1000, from)) {
    await writeFile(join(dir, `${String(page++).padStart(8, '0')}.ndjson`), p.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }
}

export async function* stagedPages(dir: string): AsyncGenerator<unknown[]> {
  for (const f of (await readdir(dir)).sort()) {
    const text = (await readFile(join(dir, f))).toString('utf8');
    yield text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);
  }
}

/** exceljs's streaming writer with the same styles, tuned: it waits while the sheet stream is queued. */
export async function exceljs(rows: number, out: string, backpressure: boolean): Promise<number> {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: out, useStyles: true, useSharedStrings: false, zip: { zlib: { level: LEVEL } } });
  const ws = wb.addWorksheet('Sheet1');
  const border = { top: { style: 'thin' }, left: { style: 'thin' }, bottom: { style: 'thin' }, right: { style: 'thin' } } as const;
  const fmts: Record<string, string> = { id: '0', amount: '#,##0.00', qty: '0', rate: '0.00%', day: 'yyyy-mm-dd', created: 'yyyy-mm-dd hh:mm:ss', code: '@' };
  ws.columns = KEYS.map((k) => ({ key: k, width: 14, style: { numFmt: fmts[k], border, alignment: { horizontal: 'center', vertical: 'middle' } } }));
  // Its sheet stream hands chunks on without waiting; commit() is synchronous, so the caller must
  // yield to let the zip drain, and wait while the sheet stream's queue is long.
  type Queue = { buffers: unknown[]; pipes: { _writableState?: { length: number }; _readableState?: { length: number } }[] };
  const stream = (ws as unknown as { stream: Queue }).stream;
  const queued = () => stream.buffers.length * 65536 + stream.pipes.reduce((n, p) => n + (p._writableState?.length ?? 0) + (p._readableState?.length ?? 0), 0);
  for (let i = 0; i < rows; i++) {
    const r = row(i);
    const added = ws.addRow({ ...r, day: new Date(r.day as string), created: new Date((r.created as string).replace(' ', 'T') + 'Z') });
    if ((r.amount as number) < 0) added.getCell('amount').font = { color: { argb: 'FFFF0000' }, bold: true };
    added.commit();
    if (backpressure && i % 64 === 0) {
      do await new Promise((res) => setImmediate(res));
      while (queued() > 4 << 20);
    }
  }
  ws.commit();
  await wb.commit();
  const { size } = await import('node:fs/promises').then((f) => f.stat(out));
  return size;
}
