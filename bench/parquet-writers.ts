// `npm run bench -- parquet [--rows N] [--repeat N] [--only NAME]`: the service's Parquet render
// against DuckDB's one-thread conversion of the same rows, in the same run (ADR 0050), then the
// whole Parquet export against CSV's (bench/formats.ts). Each writer runs in its own process (so
// its peak RSS is its own) on the same rows as bench/source.ts serves (id, order_no, customer,
// amount, status, created_at as a UTC timestamp, remark).
// - `render` is the service's own path (domain/staging/render-parquet.ts): the rows staged on disk
//   as a Parquet export's lanes stage them (the pages' JSON bytes transcoded to staged values, each
//   piece's row groups encoded; created_at as the source sends it, ISO text, ADR 0056), then
//   rendered; the render is timed, and the staging's work apart (what the lanes do while they
//   fetch), after an untimed warm-up of 50,000 rows (the anchor gets the same warm-up).
// - `duckdb-json`, the anchor: the same JSON lines as one file, `COPY (SELECT * FROM read_json_auto(…))
//   TO … (FORMAT parquet)` with one thread; only the COPY is timed. Both files are read back by
//   DuckDB and must hold the same rows.
// - `--only all` adds the writers ADR 0032 compared (hyparquet-writer, parquet-wasm, DuckDB's
//   appender, parquetjs), given the rows a row group of 100,000 at a time; `--only NAME` runs one
//   and skips the export. `--repeat N` runs each N times, alternating the order; medians.
// Run a single candidate with `node --import tsx bench/parquet-writers.ts <name> <rows> <file>`.
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, spawnNode } from './measure.js';

const GROUP = 100_000;
const WARM_ROWS = 50_000;
const STATUSES = ['paid', 'refunded', 'pending', 'shipped'];
const CANDIDATES = ['render', 'duckdb-json', 'hyparquet-writer', 'parquet-wasm', 'duckdb', 'parquetjs'] as const;
const ANCHORED = ['render', 'duckdb-json'] as const;
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

/** A row as the source sends it and the service stages it (created_at as ISO text). */
const stagedRow = (i: number) => ({ ...rowAt(i), created_at: new Date(rowAt(i).created_at).toISOString() });

/** The anchor: the staged rows as one JSON lines file (untimed), converted by DuckDB with one thread. */
async function duckdbJson(rows: number, file: string): Promise<() => Promise<void>> {
  const lines = `${file}.jsonl`;
  const out = createWriteStream(lines);
  for (let at = 0; at < rows; at += 10_000) {
    const chunk = Array.from({ length: Math.min(10_000, rows - at) }, (_, k) => `${JSON.stringify(stagedRow(at + k))}\n`).join('');
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  // Opened untimed, as our render's store is: only the COPY is timed (the lines go with the run's folder).
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const con = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
  return async () => {
    await con.run(`COPY (SELECT * FROM read_json_auto('${lines}')) TO '${file}' (FORMAT parquet)`);
  };
}

/** The staging's own cost: what a lane spends on the pages' bytes besides fetching them (ADR 0056). */
const staging = { ms: 0, cpuMs: 0 };

/**
 * Stages the rows as a fetch does (pages of 1,000 rows, pieces of about 4 MiB): each page's JSON bytes as the
 * source sends them transcoded to staged values, each piece's row groups encoded, as a lane does;
 * that work timed apart (`staging`; the pages' JSON is made untimed). Returns the render.
 */
async function stagedRender(rows: number, file: string): Promise<() => Promise<void>> {
  const { LocalStorage } = await import('../platform/storage/local.js');
  const { keys } = await import('../domain/staging/keys.js');
  const { writeMeta } = await import('../domain/staging/meta.js');
  const { valuesTranscoderFor } = await import('../domain/formats/parquet/transcode.js');
  const { encodeGroups } = await import('../domain/formats/parquet/groups.js');
  const { renderParquet } = await import('../domain/staging/render-parquet.js');
  const { pieceLimits } = await import('../domain/staging/pieces.js');
  const pieceBytes = pieceLimits('pqv').bytes;
  const dataDir = `${file}.d`;
  const storage = new LocalStorage(dataDir);
  const page = 1000;
  const columns = Object.keys(rowAt(0)).map((key) => ({ key, title: key }));
  const transcoder = valuesTranscoderFor(columns);
  await writeMeta(storage, 'tsk_bench', { total: rows, pageSize: page, columns });
  staging.ms = staging.cpuMs = 0;
  // A lane's piece: its pages' staged values until they reach a Parquet piece's bytes (4 MiB; a lane
  // also ends one after a second, which at this source's pace is later).
  let fragments: Buffer[] = [];
  let from = 0;
  const pages = Math.ceil(rows / page);
  for (let p = 0; p < pages; p++) {
    const data = Array.from({ length: Math.min(page, rows - p * page) }, (_, k) => JSON.stringify(stagedRow(p * page + k)));
    const body = Buffer.from(`{"total":${rows},"data":[${data.join(',')}]}`);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    fragments.push(transcoder.transcode(body)!.values);
    const due = fragments.reduce((n, f) => n + f.length, 0) >= pieceBytes || p === pages - 1;
    const piece = due ? (encodeGroups(fragments, columns) ?? fragments) : null;
    const cpu = process.cpuUsage(cpu0);
    staging.ms += performance.now() - t0;
    staging.cpuMs += (cpu.user + cpu.system) / 1000;
    if (piece) {
      await storage.putBuffer(keys.piece('tsk_bench', from, p + 1, 'pqv'), piece);
      fragments = [];
      from = p + 1;
    }
  }
  const task = { id: 'tsk_bench', type: 'parquet', options: {}, fileName: 'bench', createdAt: new Date() };
  return async () => {
    await renderParquet({ storage, dataDir }, { task: task as never, settings: {} as never, signal: new AbortController().signal, onProgress: () => {} });
    const { copyFileSync } = await import('node:fs');
    copyFileSync((await storage.list(keys.output('tsk_bench', ''))).map((k) => join(dataDir, k))[0]!, file);
  };
}

type Timed = Exclude<Candidate, (typeof ANCHORED)[number]>;
const WRITERS: Record<Timed, (rows: number, file: string) => Promise<void>> = { 'hyparquet-writer': hyparquet, 'parquet-wasm': parquetWasm, duckdb, parquetjs };

/** The child: one candidate, its time and its own peak RSS as one JSON line. */
async function child(name: Candidate, rows: number, file: string): Promise<void> {
  // What is timed: the render or the COPY alone (their input staged first), or the whole writer.
  const prepare = name === 'render' ? stagedRender : name === 'duckdb-json' ? duckdbJson : null;
  if (prepare) {
    // Warm-up, untimed: the same path on 50,000 rows first, as a worker that has rendered before
    // runs it (compiled, caches filled); DuckDB gets the same.
    await (await prepare(Math.min(rows, WARM_ROWS), `${file}.warm`))();
    for (const f of [`${file}.warm`, `${file}.warm.d`, `${file}.warm.jsonl`]) rmSync(f, { recursive: true, force: true });
  }
  const prepared = prepare ? await prepare(rows, file) : null;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await (prepared ? prepared() : WRITERS[name as Timed](rows, file));
  const ms = performance.now() - t0;
  // CPU seconds too: on a shared machine they move less than the wall clock.
  const cpu = process.cpuUsage(cpu0);
  const stage = name === 'render' ? { stageMs: Math.round(staging.ms), stageCpuMs: Math.round(staging.cpuMs) } : {};
  console.log(JSON.stringify({ name, rows, ms: Math.round(ms), cpuMs: Math.round((cpu.user + cpu.system) / 1000), ...stage, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), bytes: statSync(file).size }));
}

interface Run {
  ms: number;
  cpuMs: number;
  /** The render's: the staging's work, timed apart (its lanes do it while they fetch). */
  stageMs?: number;
  stageCpuMs?: number;
  peakRssMb: number;
  bytes: number;
}

/** Whether two Parquet files hold the same rows (as DuckDB reads them; timestamps compared in UTC). */
async function sameRows(a: string, b: string): Promise<string> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const con = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
  await con.run("SET TimeZone = 'UTC'");
  const cols = 'id, order_no, customer, amount, status, created_at::TIMESTAMP AS created_at, remark';
  const count = async (sql: string) => Number((await (await con.run(sql)).getRows())[0]![0]);
  const [na, nb] = [await count(`SELECT count(*) FROM read_parquet('${a}')`), await count(`SELECT count(*) FROM read_parquet('${b}')`)];
  const missing = await count(`SELECT count(*) FROM (SELECT ${cols} FROM read_parquet('${a}') EXCEPT ALL SELECT ${cols} FROM read_parquet('${b}'))`);
  const extra = await count(`SELECT count(*) FROM (SELECT ${cols} FROM read_parquet('${b}') EXCEPT ALL SELECT ${cols} FROM read_parquet('${a}'))`);
  con.closeSync();
  return na === nb && missing === 0 && extra === 0 ? `equal (${na.toLocaleString('en')} rows, every value)` : `NOT EQUAL: ${na} and ${nb} rows, ${missing} only in ours, ${extra} only in DuckDB's`;
}

export async function benchParquetWriters(rows: number, only?: string, repeat = 1): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'dc-parquet-'));
  const names: readonly Candidate[] = only === 'all' ? CANDIDATES : only ? CANDIDATES.filter((c) => c === only) : ANCHORED;
  if (names.length === 0) throw new Error(`--only: no such writer (all, ${CANDIDATES.join(', ')})`);
  const runs = new Map<Candidate, Run[]>(names.map((n) => [n, []]));
  const lines = ['| writer | seconds (median) | CPU seconds | peak RSS (MB) | file (MB) | every run (s) |', '| --- | ---: | ---: | ---: | ---: | --- |'];
  const notes: string[] = [];
  try {
    for (let i = 0; i < repeat; i++) {
      // Alternating the order: a shared machine's load drifts, and neither side always goes first.
      for (const name of i % 2 === 0 ? names : [...names].reverse()) {
        const file = join(dir, `${name}.parquet`);
        rmSync(file, { force: true });
        const p = spawnNode(['bench/parquet-writers.ts', name, String(rows), file], {});
        await p.exited;
        const last = p.out().trim().split('\n').at(-1)!;
        try {
          runs.get(name)!.push(JSON.parse(last) as Run);
        } catch {
          notes.push(`${name} failed: ${p.out().trim().split('\n').slice(-3).join(' ').slice(0, 300)}`);
        }
        for (const f of [`${file}.d`, `${file}.jsonl`]) rmSync(f, { recursive: true, force: true });
      }
    }
    for (const [name, rs] of runs) {
      if (rs.length === 0) continue;
      const s = (ms: number) => (ms / 1000).toFixed(2);
      lines.push(`| ${name} | ${s(median(rs.map((r) => r.ms)))} | ${s(median(rs.map((r) => r.cpuMs)))} | ${Math.max(...rs.map((r) => r.peakRssMb))} | ${(rs[0]!.bytes / 1e6).toFixed(1)} | ${rs.map((r) => s(r.ms)).join(', ')} |`);
    }
    const [ours, anchor] = [runs.get('render') ?? [], runs.get('duckdb-json') ?? []];
    if (ours.length && anchor.length) {
      const ratio = (f: (r: Run) => number) => (median(ours.map(f)) / median(anchor.map(f))).toFixed(2);
      const pairs = ours.map((r, k) => (anchor[k] ? (r.ms / anchor[k].ms).toFixed(2) : '')).filter(Boolean);
      notes.push(`render vs DuckDB 1 thread, same rows, same run: **${ratio((r) => r.ms)}×** the wall clock (medians; run by run ${pairs.join(', ')}), ${ratio((r) => r.cpuMs)}× the CPU seconds`);
      // The whole conversion from the source's JSON: the staging's work (transcoding the pages, encoding the row groups) and the render.
      const whole = (r: Run) => r.cpuMs + (r.stageCpuMs ?? 0);
      const wholePairs = ours.map((r, k) => (anchor[k] ? (whole(r) / anchor[k].cpuMs).toFixed(2) : '')).filter(Boolean);
      notes.push(`staging + render (the pages' JSON to the file, on one thread) vs DuckDB: ${(median(ours.map(whole)) / median(anchor.map((r) => r.cpuMs))).toFixed(2)}× the CPU seconds (staging ${(median(ours.map((r) => r.stageCpuMs ?? 0)) / 1000).toFixed(2)} s + render ${(median(ours.map((r) => r.cpuMs)) / 1000).toFixed(2)} s, against ${(median(anchor.map((r) => r.cpuMs)) / 1000).toFixed(2)} s; run by run ${wholePairs.join(', ')})`);
      notes.push(`read back by DuckDB: ${await sameRows(join(dir, 'render.parquet'), join(dir, 'duckdb-json.parquet'))}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return `Parquet writers, ${rows.toLocaleString('en')} rows, ${repeat} run(s) each (bench/parquet-writers.ts)\n\n${lines.join('\n')}\n\n${notes.map((n) => `- ${n}`).join('\n')}`;
}

if (process.argv[1]?.endsWith('parquet-writers.ts') && process.argv[2]) {
  await child(process.argv[2] as Candidate, Number(process.argv[3]), process.argv[4]!);
}
