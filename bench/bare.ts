// The anchor: the simplest script that fetches the same pages and writes the same CSV file (same
// encoder, BOM and header), with `in_flight` pages requested at once (1: one after another; issue
// 13's anchor is 5) and written in page order. bench/run.ts compares our export to it.
//   node --import tsx bench/bare.ts <source_url> <page_size> <out.csv> [in_flight]
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { request } from 'undici';
import { rowColumns } from '../domain/formats/columns.js';
import { encodeCsvHead, encodeCsvRows } from '../domain/formats/csv/encode.js';

const [sourceUrl, pageSizeArg, outPath, inFlightArg] = process.argv.slice(2) as [string, string, string, string?];
const pageSize = Number(pageSizeArg);
const inFlight = Math.max(1, Number(inFlightArg ?? 1));
const started = Date.now();

async function get(page: number, size: number): Promise<{ total: number; data: Record<string, unknown>[] }> {
  const url = new URL(sourceUrl);
  url.searchParams.set('page', String(page));
  url.searchParams.set('page_size', String(size));
  const res = await request(url);
  return (await res.body.json()) as { total: number; data: Record<string, unknown>[] };
}

const probe = await get(0, 1);
const columns = rowColumns(probe.data[0]);
const out = createWriteStream(outPath, { highWaterMark: 1 << 20 });
const hash = createHash('sha256');
let bytes = 0;
const write = async (buf: Buffer) => {
  hash.update(buf);
  bytes += buf.length;
  if (!out.write(buf)) await once(out, 'drain');
};
await write(encodeCsvHead(columns, true));
const pages = Math.ceil(probe.total / pageSize);
// A window of requests: page p + inFlight is asked for as soon as page p is written.
const pending: Array<Promise<{ data: Record<string, unknown>[] }>> = [];
for (let p = 0; p < Math.min(inFlight, pages); p++) pending.push(get(p, pageSize));
for (let p = 0; p < pages; p++) {
  const page = await pending.shift()!;
  if (p + inFlight < pages) pending.push(get(p + inFlight, pageSize));
  await write(encodeCsvRows(page.data, columns));
}
out.end();
await once(out, 'close');
console.log(JSON.stringify({ ms: Date.now() - started, bytes, rows: probe.total, sha256: hash.digest('hex'), maxRssMb: Math.round(process.resourceUsage().maxRSS / 1024), cpuSeconds: Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1e5) / 10 }));
