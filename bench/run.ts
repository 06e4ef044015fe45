// `npm run bench [-- 100MB 1GB]`: CSV exports of the given sizes from a local generator source
// (bench/source.ts, its own process) through the real service: a Temporal dev server, Postgres, the
// API in this process and the worker as its own process (fresh for each run, so its peak RSS is
// that run's). Each size is also exported by bench/bare.ts, the baseline; both files must be equal.
// Runs are sequential. Results: printed as a Markdown table and kept in .bench/results.json.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { rowColumns } from '../activities/columns.js';
import { encodeCsvRows } from '../activities/csv-encode.js';
import { loadConfig } from '../lib/config.js';
import { connectTemporal, openCore, startApi } from '../lib/runtime.js';
import { projectRoot, startDevServer } from '../lib/temporal-server.js';

const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const PAGE_SIZE = 1000;
const ADMIN = 'bench-admin-token-0123456789';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const parseSize = (s: string) => {
  const m = /^(\d+(?:\.\d+)?)(MB|GB)$/i.exec(s);
  if (!m) throw new Error(`size must look like 100MB or 1GB: ${s}`);
  return Number(m[1]) * (m[2]!.toUpperCase() === 'GB' ? 1e9 : 1e6);
};

function spawnNode(args: string[], env: Record<string, string>, nodeArgs: string[] = []): { child: ChildProcess; out: () => string; ready: (text: string) => Promise<void> } {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ...args], { cwd: projectRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const ready = async (text: string) => {
    while (!out.includes(text)) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { child, out: () => out, ready };
}

/** Current and peak resident set of a process, in MB, from /proc. */
function rssMb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function dirBytes(dir: string): number {
  let n = 0;
  try {
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) n += statSync(join(e.parentPath, e.name)).size;
  } catch {
    // not there yet
  }
  return n;
}

type HistoryEvent = { eventTime?: { seconds?: unknown; nanos?: number | null } | null; activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null; activityTaskCompletedEventAttributes?: { scheduledEventId?: unknown } | null; eventId?: unknown };

/** Seconds from the workflow's start to the first schedule and last completion of each activity type. */
function phaseSpans(events: HistoryEvent[]): Record<string, string> {
  const ms = (e: HistoryEvent) => Number(e.eventTime?.seconds ?? 0) * 1000 + (e.eventTime?.nanos ?? 0) / 1e6;
  const t0 = ms(events[0]!);
  const typeOf = new Map<string, string>();
  const spans: Record<string, [number, number]> = {};
  for (const e of events) {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) {
      typeOf.set(String(e.eventId), name);
      spans[name] ??= [ms(e) - t0, 0];
    }
    const done = e.activityTaskCompletedEventAttributes?.scheduledEventId;
    if (done !== undefined && done !== null) spans[typeOf.get(String(done))!]![1] = ms(e) - t0;
  }
  return Object.fromEntries(Object.entries(spans).map(([k, [a, b]]) => [k, `${(a / 1000).toFixed(2)}–${(b / 1000).toFixed(2)}`]));
}

async function main() {
  const sizes = process.argv.slice(2).filter((a) => a !== '--');
  const targets = (sizes.length ? sizes : ['100MB', '1GB']).map((s) => ({ label: s, bytes: parseSize(s) }));
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-bench-'));
  const dbName = `dc_bench_${Date.now()}`;
  const admin = postgres(`${PG}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const temporal = await startDevServer({ port: await freePort() });
  const srcPort = await freePort();
  const source = spawnNode(['bench/source.ts', String(srcPort)], {});
  await source.ready('listening');
  const sourceUrl = `http://127.0.0.1:${srcPort}/export`;
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: `${PG}/${dbName}`,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: 'bench',
    ADMIN_TOKEN: ADMIN,
    LINK_SECRET: 'bench-link-secret-0123456789',
    LOG_LEVEL: 'warn',
    PORT: String(await freePort()),
  };
  const config = loadConfig(env);
  const core = await openCore(config);
  const client = await connectTemporal(config, temporal.address);
  const api = await startApi({ ...core, temporal: client });
  const base = `http://127.0.0.1:${config.PORT}`;
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API JSON, checked by use
  };
  const project = await call('POST', '/v1/projects', ADMIN, { name: 'bench', source_hosts: [`127.0.0.1:${srcPort}`], retention_hours: 1 });

  // Rows per target size, from the CSV bytes of a sample page.
  const sample = (await (await fetch(`${sourceUrl}?total=1000&page=0&page_size=1000`)).json()) as { data: Record<string, unknown>[] };
  const bytesPerRow = encodeCsvRows(sample.data, rowColumns(sample.data[0])).length / 1000;
  const results: Array<Record<string, any>> = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- rows of the table below
  try {
    for (const t of targets) {
      const total = Math.round(t.bytes / bytesPerRow);
      const url = `${sourceUrl}?total=${total}`;
      console.error(`[bench] ${t.label}: ${total} rows, ${Math.ceil(total / PAGE_SIZE)} pages; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

      const load = loadavg()[0]!;
      const bareOut = join(dataDir, 'bare.csv');
      const srcPid = source.child.pid!;
      const srcCpu0 = cpuSeconds(srcPid);
      const bare = spawnNode(['bench/bare.ts', url, String(PAGE_SIZE), bareOut], {});
      await new Promise((r) => bare.child.once('exit', r));
      const b = JSON.parse(bare.out().trim().split('\n').at(-1)!) as { ms: number; bytes: number; sha256: string; maxRssMb: number; cpuSeconds: number };
      const bareSourceCpu = cpuSeconds(srcPid) - srcCpu0;
      rmSync(bareOut, { force: true });

      // BENCH_WORKER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=.bench" profiles the worker.
      const worker = spawnNode(['worker/main.ts'], env, (process.env.BENCH_WORKER_NODE_OPTIONS ?? '').split(' ').filter(Boolean));
      await worker.ready('worker polling');
      const pid = worker.child.pid!;
      const baselineRss = rssMb(pid).rss;
      const [workerCpu0, srcCpu1] = [cpuSeconds(pid), cpuSeconds(srcPid)];
      const rssSamples: number[] = [];
      let staged = 0;
      const sampler = setInterval(() => rssSamples.push(rssMb(pid).rss), 250);
      const stager = setInterval(() => (staged = Math.max(staged, dirBytes(join(dataDir, 'store', 'staging')))), 1000);
      const t0 = Date.now();
      let task = await call('POST', '/v1/tasks', project.api_key, { source_url: url, operator_id: 'bench', page_size: PAGE_SIZE, file_name: `bench-${t.label}` });
      while (['queued', 'running'].includes(task.status)) {
        await new Promise((r) => setTimeout(r, 250));
        task = await call('GET', `/v1/tasks/${task.task_id}`, project.api_key);
      }
      const ms = Date.now() - t0;
      clearInterval(sampler);
      clearInterval(stager);
      const peak = rssMb(pid).hwm;
      const [workerCpu, serviceSourceCpu] = [cpuSeconds(pid) - workerCpu0, cpuSeconds(srcPid) - srcCpu1];
      const events = (await client.workflow.getHandle(task.task_id).fetchHistory()).events ?? [];
      const history = events.length;
      const phases = phaseSpans(events);
      worker.child.kill('SIGTERM');
      await new Promise((r) => worker.child.once('exit', r));
      if (task.status !== 'succeeded') throw new Error(`export failed: ${JSON.stringify(task.error)}`);
      const file = task.files[0];
      const quarter = (q: number) => Math.round(rssSamples[Math.min(rssSamples.length - 1, Math.floor((rssSamples.length * q) / 4))] ?? 0);
      const r = {
        size: t.label,
        rows: total,
        pages: Math.ceil(total / PAGE_SIZE),
        fileBytes: file.bytes,
        sameAsBare: file.sha256 === b.sha256,
        serviceSeconds: ms / 1000,
        serviceRowsPerSec: Math.round(total / (ms / 1000)),
        bareSeconds: b.ms / 1000,
        ratio: Math.round((ms / b.ms) * 100) / 100,
        workerCpuSeconds: Math.round(workerCpu * 10) / 10,
        bareCpuSeconds: b.cpuSeconds,
        sourceCpuSeconds: { bare: Math.round(bareSourceCpu * 10) / 10, service: Math.round(serviceSourceCpu * 10) / 10 },
        workerIdleRssMb: Math.round(baselineRss),
        workerPeakRssMb: Math.round(peak),
        workerRssAtQuartersMb: [1, 2, 3, 4].map(quarter),
        bareMaxRssMb: b.maxRssMb,
        stagedPeakBytes: staged,
        historyEvents: history,
        loadAvg1mBefore: Math.round(load * 100) / 100,
        phases,
      };
      console.error(`[bench] ${JSON.stringify(r)}`);
      results.push(r);
      await core.storage.deletePrefix(`files/${task.task_id}`);
    }
  } finally {
    api.close();
    await client.connection.close();
    await core.database.close();
    source.child.kill('SIGTERM');
    await temporal.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }

  mkdirSync(join(projectRoot, '.bench'), { recursive: true });
  const cpu = execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).toString().trim();
  writeFileSync(join(projectRoot, '.bench', 'results.json'), JSON.stringify({ at: new Date().toISOString(), cpu, results }, null, 2));
  const rows = [
    ['', ...results.map((r) => r.size)],
    ['rows / pages', ...results.map((r) => `${r.rows.toLocaleString('en')} / ${r.pages}`)],
    ['file bytes', ...results.map((r) => r.fileBytes.toLocaleString('en'))],
    ['service wall time (s)', ...results.map((r) => r.serviceSeconds.toFixed(1))],
    ['service rows/s', ...results.map((r) => r.serviceRowsPerSec.toLocaleString('en'))],
    ['bare script (s)', ...results.map((r) => r.bareSeconds.toFixed(1))],
    ['service / bare', ...results.map((r) => `${r.ratio}x`)],
    ['same bytes as bare', ...results.map((r) => (r.sameAsBare ? 'yes' : 'NO'))],
    ['CPU s: worker / bare script', ...results.map((r) => `${r.workerCpuSeconds} / ${r.bareCpuSeconds}`)],
    ['CPU s of the source: for service / for bare', ...results.map((r) => `${r.sourceCpuSeconds.service} / ${r.sourceCpuSeconds.bare}`)],
    ['worker RSS idle before the export (MB)', ...results.map((r) => r.workerIdleRssMb)],
    ['worker peak RSS (MB)', ...results.map((r) => r.workerPeakRssMb)],
    ['worker RSS at 25/50/75/100% (MB)', ...results.map((r) => r.workerRssAtQuartersMb.join(' / '))],
    ['bare script peak RSS (MB)', ...results.map((r) => r.bareMaxRssMb)],
    ['staged bytes at peak', ...results.map((r) => r.stagedPeakBytes.toLocaleString('en'))],
    ['history events', ...results.map((r) => r.historyEvents)],
    ['load average before', ...results.map((r) => r.loadAvg1mBefore)],
  ];
  console.log(rows.map((r, i) => `| ${r.join(' | ')} |${i === 0 ? `\n|${' --- |'.repeat(r.length)}` : ''}`).join('\n'));
}

await main();
process.exit(0);
