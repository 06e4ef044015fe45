// Reading exports back: downloads, workbooks (exceljs reader), zip entries (yauzl).
import { createHash } from 'node:crypto';
import ExcelJS from 'exceljs';
import yauzl from 'yauzl';
import { expect } from 'vitest';

export async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A listed file, downloaded and checked against its listed size and checksum. */
export async function fetchListed(file: { url: string; bytes: number; sha256: string }): Promise<Buffer> {
  const body = await download(file.url);
  expect(body.length).toBe(file.bytes);
  expect(sha256(body)).toBe(file.sha256);
  return body;
}

export async function readSheet(body: Buffer): Promise<ExcelJS.Worksheet> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(body as unknown as ArrayBuffer);
  expect(wb.worksheets).toHaveLength(1);
  return wb.worksheets[0]!;
}

/** Every worksheet of a workbook, in order. */
export async function readSheets(body: Buffer): Promise<ExcelJS.Worksheet[]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(body as unknown as ArrayBuffer);
  return wb.worksheets;
}

export const merges = (ws: ExcelJS.Worksheet): string[] => [...ws.model.merges].sort();

/** Values of a row from column A on (exceljs rows are 1-based with a hole at 0). */
export function rowValues(ws: ExcelJS.Worksheet, n: number): unknown[] {
  const values = ws.getRow(n).values as unknown[];
  return Array.from({ length: ws.columnCount }, (_, i) => values[i + 1] ?? null);
}

/** The raw XML of one part of an .xlsx, or the names and bodies of a zip's entries. */
export async function zipEntries(body: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(body);
  const out = new Map<string, Buffer>();
  for await (const entry of zip.eachEntry()) {
    const stream = await zip.openReadStreamPromise(entry);
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    out.set(entry.fileName, Buffer.concat(chunks));
  }
  return out;
}
