// `npm run bench -- parquet [--rows N]`: the Parquet writer candidates side by side (ADR 0032), each
// in its own process (so its peak RSS is its own), writing the same rows as bench/source.ts serves
// (id, order_no, customer, amount, status, created_at as a UTC timestamp, remark) in row groups of
// 100,000, snappy-compressed. The rows arrive one row group at a time, as the renderer gathers them.
// Run a single candidate with `node --import tsx bench/parquet-writers.ts <name> <rows> <file>`.
// `render` is the service's own path (domain/staging/render-parquet.ts): the same rows staged as
// JSON lines on disk (created_at as the source sends it, ISO text), then rendered; only the render
// is timed. `--only NAME` runs one candidate, `--repeat N` runs each N times.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnNode } from './measure.js';

const GROUP = 100_000;
const STATUSES = ['paid', 'refunded', 'pending', 'shipped'];
const CANDIDATES = ['render', 'hyparquet-writer', 'parquet-wasm', 'duckdb', 'parquetjs'] as const;
type Candidate = (typeof CANDIDATES)[number];

interface Row {
  id: number;
  order_no: string;
  customer: string;
  amount: number;
  status: string;
  created_at: number;
  remark: string;
}

function rowAt(i: number): Row {
  const id = i + 1;
  const day = 1 + (i % 28);
  return {
    id,
    order_no: `SO${String(id).padStart(10, '0')}`,
    customer: `客户 ${id % 5000}`,
    amount: ((i * 7919) % 100_000) / 100,
    status: STATUSES[i % 4]!,
    created_at: Date.UTC(2026, 10, day, 8, i % 60),
    remark: i % 9 === 0 ? 'gift, wrap "red"' : '',
  };
}

function* groups(rows: number): Generator<Row[]> {
  for (let at = 0; at < rows; at += GROUP) yield Array.from({ length: Math.min(GROUP, rows - at) }, (_, k) => rowAt(at + k));
}

async function hyparquet(rows: number, file: string): Promise<void> {
  const { ParquetWriter } = await import('hyparquet-writer');
  const { fileWriter } = await import('hyparquet-writer/src/node.js' as string);
  const opt = (name: string, type: 'INT64' | 'DOUBLE' | 'BYTE_ARRAY') => ({ name, type, repetition_type: 'OPTIONAL' as const });
  const text = (name: string) => ({ ...opt(name, 'BYTE_ARRAY'), converted_type: 'UTF8' as const });
  const schema = [
    { name: 'root', num_children: 7 },
    opt('id', 'INT64'), text('order_no'), text('customer'), opt('amount', 'DOUBLE'), text('status'),
    { ...opt('created_at', 'INT64'), converted_type: 'TIMESTAMP_MILLIS' as const }, text('remark'),
  ];
  const w = new ParquetWriter({ writer: fileWriter(file), schema });
  for (const g of groups(rows)) {
    const col = <K extends keyof Row>(k: K, f: (v: Row[K]) => unknown = (v) => v) => ({ name: k, data: g.map((r) => f(r[k])) });
    await w.write({ columnData: [col('id', BigInt), col('order_no'), col('customer'), col('amount'), col('status'), col('created_at', BigInt), col('remark')], rowGroupSize: g.length });
  }
  await w.finish();
}

async function parquetWasm(rows: number, file: string): Promise<void> {
  const arrow = await import('apache-arrow');
  const pw = await import('parquet-wasm');
  const { openSync, writeSync, closeSync } = await import('node:fs');
  // Each row group becomes an Arrow table, handed over as record batches to parquet-wasm's stream
  // writer, which writes row groups as they come.
  const fd = openSync(file, 'w');
  const schemaTable = (g: Row[]) =>
    arrow.tableFromArrays({
      id: BigInt64Array.from(g, (r) => BigInt(r.id)),
      order_no: g.map((r) => r.order_no),
      customer: g.map((r) => r.customer),
      amount: Float64Array.from(g, (r) => r.amount),
      status: g.map((r) => r.status),
      created_at: BigInt64Array.from(g, (r) => BigInt(r.created_at)),
      remark: g.map((r) => r.remark),
    });
  const stream = new ReadableStream({
    start: (ctl) => {
      for (const g of groups(rows)) for (const b of pw.Table.fromIPCStream(arrow.tableToIPC(schemaTable(g), 'stream')).recordBatches()) ctl.enqueue(b);
      ctl.close();
    },
  });
  const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.SNAPPY).setMaxRowGroupSize(GROUP).build();
  const out = await pw.transformParquetStream(stream as never, props);
  for await (const chunk of out as unknown as AsyncIterable<Uint8Array>) writeSync(fd, chunk);
  closeSync(fd);
}

async function duckdb(rows: number, file: string): Promise<void> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await db.connect();
  await con.run('CREATE TABLE t (id BIGINT, order_no VARCHAR, customer VARCHAR, amount DOUBLE, status VARCHAR, created_at TIMESTAMP_MS, remark VARCHAR)');
  // The whole table stays in DuckDB until COPY: the only way its Node API writes one file.
  const app = await con.createAppender('t');
  for (const g of groups(rows)) {
    for (const r of g) {
      app.appendBigInt(BigInt(r.id));
      app.appendVarchar(r.order_no);
      app.appendVarchar(r.customer);
      app.appendDouble(r.amount);
      app.appendVarchar(r.status);
      app.appendVarchar(new Date(r.created_at).toISOString().replace('T', ' ').replace('Z', ''));
      app.appendVarchar(r.remark);
      app.endRow();
    }
    app.flushSync();
  }
  app.closeSync();
  await con.run(`COPY t TO '${file}' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${GROUP})`);
}

async function parquetjs(rows: number, file: string): Promise<void> {
  const { ParquetSchema, ParquetWriter } = (await import('@dsnp/parquetjs')) as unknown as { ParquetSchema: new (s: unknown) => unknown; ParquetWriter: { openFile(s: unknown, f: string, o: unknown): Promise<{ appendRow(r: unknown): Promise<void>; close(): Promise<void> }> } };
  const opt = (type: string) => ({ type, optional: true, compression: 'SNAPPY' });
  const schema = new ParquetSchema({ id: opt('INT64'), order_no: opt('UTF8'), customer: opt('UTF8'), amount: opt('DOUBLE'), status: opt('UTF8'), created_at: opt('TIMESTAMP_MILLIS'), remark: opt('UTF8') });
  const w = await ParquetWriter.openFile(schema, file, { rowGroupSize: GROUP });
  for (const g of groups(rows)) for (const r of g) await w.appendRow({ ...r, id: BigInt(r.id), created_at: new Date(r.created_at) });
  await w.close();
}

/** Stages the rows as a fetch would (pieces of 5 pages of 1,000 rows), untimed; returns the render. */
async function stagedRender(rows: number, file: string): Promise<() => Promise<void>> {
  const { LocalStorage } = await import('../platform/storage/local.js');
  const { keys } = await import('../domain/staging/keys.js');
  const { writeMeta } = await import('../domain/staging/meta.js');
  const { encodeStaged } = await import('../domain/staging/pieces.js');
  const { renderParquet } = await import('../domain/staging/render-parquet.js');
  const dataDir = `${file}.d`;
  const storage = new LocalStorage(dataDir);
  const page = 1000;
  const columns = Object.keys(rowAt(0)).map((key) => ({ key, title: key }));
  await writeMeta(storage, 'tsk_bench', { total: rows, pageSize: page, columns });
  for (let at = 0; at < rows; at += 5 * page) {
    const piece = Array.from({ length: Math.min(5 * page, rows - at) }, (_, k) => ({ ...rowAt(at + k), created_at: new Date(rowAt(at + k).created_at).toISOString() }));
    await storage.putBuffer(keys.piece('tsk_bench', at / page, Math.ceil((at + piece.length) / page), 'ndjson'), encodeStaged('ndjson', piece, columns));
  }
  const task = { id: 'tsk_bench', type: 'parquet', options: {}, fileName: 'bench', createdAt: new Date() };
  return async () => {
    await renderParquet({ storage, dataDir }, { task: task as never, settings: {} as never, signal: new AbortController().signal, onProgress: () => {} });
    const { copyFileSync } = await import('node:fs');
    copyFileSync((await storage.list(keys.output('tsk_bench', ''))).map((k) => join(dataDir, k))[0]!, file);
  };
}

const WRITERS: Record<Exclude<Candidate, 'render'>, (rows: number, file: string) => Promise<void>> = { 'hyparquet-writer': hyparquet, 'parquet-wasm': parquetWasm, duckdb, parquetjs };

/** The child: one candidate, its time and its own peak RSS as one JSON line. */
async function child(name: Candidate, rows: number, file: string): Promise<void> {
  const render = name === 'render' ? await stagedRender(rows, file) : null;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await (render ? render() : WRITERS[name as Exclude<Candidate, 'render'>](rows, file));
  const ms = performance.now() - t0;
  // CPU seconds too: on a shared machine they move less than the wall clock.
  const cpu = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ name, rows, ms: Math.round(ms), cpuMs: Math.round((cpu.user + cpu.system) / 1000), peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), bytes: statSync(file).size }));
}

export async function benchParquetWriters(rows: number, only?: string, repeat = 1): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dc-parquet-'));
  const lines = ['| writer | seconds | CPU seconds | peak RSS (MB) | file (MB) |', '| --- | ---: | ---: | ---: | ---: |'];
  try {
    for (const name of CANDIDATES.filter((c) => !only || c === only).flatMap((c) => Array<Candidate>(repeat).fill(c))) {
      const p = spawnNode(['bench/parquet-writers.ts', name, String(rows), join(dir, `${name}.parquet`)], {});
      await p.exited;
      const last = p.out().trim().split('\n').at(-1)!;
      try {
        const r = JSON.parse(last) as { ms: number; cpuMs: number; peakRssMb: number; bytes: number };
        lines.push(`| ${name} | ${(r.ms / 1000).toFixed(1)} | ${(r.cpuMs / 1000).toFixed(1)} | ${r.peakRssMb} | ${(r.bytes / 1e6).toFixed(1)} |`);
      } catch {
        lines.push(`| ${name} | failed: ${p.out().trim().split('\n').slice(-3).join(' ').slice(0, 200)} | | | |`);
      }
      rmSync(join(dir, `${name}.parquet`), { force: true });
      rmSync(join(dir, `${name}.parquet.d`), { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return `Parquet writers, ${rows.toLocaleString('en')} rows (bench/parquet-writers.ts)\n\n${lines.join('\n')}`;
}

if (process.argv[1]?.endsWith('parquet-writers.ts') && process.argv[2]) {
  await child(process.argv[2] as Candidate, Number(process.argv[3]), process.argv[4]!);
}
