// The WebSocket benchmark (issue 15): N subscribers to `*` on one API process (or N/2 on each of
// two), one 20,000-row export, and the lag from the task's finished_at to each subscriber's
// task.succeeded frame. Clients, the source, the worker and each API are processes of their own;
// Postgres carries the events between them (LISTEN/NOTIFY).
//
// The clients are spread over BENCH_WS_CLIENT_PROCS processes per API (4 by default): one process
// reading 10,000 sockets stamps the last of them only once it has parsed all the others, so its
// own queue would be measured as the server's lag. The CPU the API and the clients use while the
// final event goes out is read from /proc every 10 ms, so a slow run says whose time it was.
// BENCH_API_NODE_OPTIONS adds node flags to the API processes (e.g. `--cpu-prof --cpu-prof-dir=.bench`;
// the API is then stopped with signals, so the profile is written).
import postgres from 'postgres';
import { startDevServer } from '../platform/temporal-server.js';
import { freePort, type NodeChild, rssMb, spawnNode, treeCpuSeconds } from './measure.js';

const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const ADMIN = 'bench-admin-token-0123456789';
const CLIENT_PROCS = Number(process.env.BENCH_WS_CLIENT_PROCS ?? 4);
const API_NODE_ARGS = (process.env.BENCH_API_NODE_OPTIONS ?? '').split(' ').filter(Boolean);

export interface WsResult {
  apis: number;
  subscribers: number;
  clientProcs: number;
  subscribed: number;
  received: number;
  p50: number;
  p99: number;
  max: number;
  apiRssMb: number[];
  /** CPU seconds of the API processes from finished_at to the last subscriber's frame. */
  apiCpuFanout: number;
  /** CPU seconds of the API processes over the whole export (its progress events included). */
  apiCpuExport: number;
  /** CPU seconds of all client processes from finished_at to the last subscriber's frame. */
  clientCpuFanout: number;
  /** Per API, ms from its read of the finished task to the final frame handed to its last socket (its own metric). */
  apiFanoutMs: number[];
}

/** The API's own account of the final event's fan-out: one task, so the histogram's sum is its one fan-out. */
async function fanoutMs(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
  const m = /^dc_task_event_fanout_seconds_sum\{event="task.succeeded"\} (\S+)$/m.exec(text);
  return m ? Math.round(Number(m[1]) * 1000) : NaN;
}

const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]! : NaN);

async function json(base: string, path: string, token: string, body?: unknown): Promise<{ api_key: string; task_id: string; finished_at: string }> {
  const res = await fetch(`${base}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  return (await res.json()) as { api_key: string; task_id: string; finished_at: string };
}

/** Samples the summed CPU seconds of `pids` every 10 ms; `between` reads the CPU used in a span. */
function cpuSampler(pids: number[]) {
  const samples: Array<[number, number]> = [];
  const read = () => samples.push([Date.now(), treeCpuSeconds(pids)]);
  read();
  const timer = setInterval(read, 10);
  const at = (t: number) => (samples.findLast(([when]) => when <= t) ?? samples[0]!)[1];
  return {
    stop: () => (clearInterval(timer), read()),
    between: (from: number, to: number) => Math.round((at(to + 10) - at(from)) * 100) / 100,
    total: () => Math.round((samples.at(-1)![1] - samples[0]![1]) * 100) / 100,
  };
}

/** Ends the API so that a --cpu-prof profile is written: a second signal exits at once (app/runtime.ts). */
async function stopProfiled(api: NodeChild): Promise<void> {
  api.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  api.child.kill('SIGTERM');
  await api.exited;
}

export async function benchWs(subscribers: number, apis: number): Promise<WsResult> {
  const dbName = `dc_bench_ws_${Date.now()}`;
  const admin = postgres(`${PG}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const temporal = await startDevServer({ port: await freePort() });
  const children: NodeChild[] = [];
  const apiChildren: NodeChild[] = [];
  try {
    const srcPort = await freePort();
    const source = spawnNode(['bench/source.ts', String(srcPort)], {});
    children.push(source);
    await source.ready('listening');
    const env = { DATABASE_URL: `${PG}/${dbName}`, TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: 'bench-ws', ADMIN_TOKEN: ADMIN, LINK_SECRET: 'bench-link-secret-0123456789', LOG_LEVEL: 'warn', WS_MAX_CONNECTIONS: String(subscribers + 1000), DATA_DIR: `/tmp/${dbName}` };
    const worker = spawnNode(['app/worker.ts'], { ...env, WORKER_METRICS_PORT: '0' });
    children.push(worker);
    await worker.ready('worker polling');
    const bases: string[] = [];
    for (let i = 0; i < apis; i++) {
      const port = await freePort();
      const api = spawnNode(['app/api.ts'], { ...env, PORT: String(port) }, API_NODE_ARGS);
      apiChildren.push(api);
      await api.ready('api listening');
      bases.push(`http://127.0.0.1:${port}`);
    }
    const apiPids = apiChildren.map((a) => a.child.pid!);
    const project = await json(bases[0]!, '/v1/projects', ADMIN, { name: 'bench-ws', source_hosts: ['127.0.0.1'] });
    const perProc = Math.ceil(subscribers / apis / CLIENT_PROCS);
    const clients = bases.flatMap((b) => Array.from({ length: CLIENT_PROCS }, () => spawnNode(['bench/ws-clients.ts', b.replace(/^http/, 'ws'), project.api_key, String(perProc)], {})));
    children.push(...clients);
    for (const c of clients) await c.ready('ready ');
    const apiCpu = cpuSampler(apiPids);
    const clientCpu = cpuSampler(clients.map((c) => c.child.pid!));
    const task = await json(bases[0]!, '/v1/tasks', project.api_key, { source_url: `http://127.0.0.1:${srcPort}/export?total=20000`, operator_id: 'bench', page_size: 1000 });
    for (const c of clients) c.child.stdin!.write(`${task.task_id}\n`);
    const lines = await Promise.all(
      clients.map(async (c) => {
        const at = c.out().length;
        while (!c.out().slice(at).includes('"received"')) await new Promise((r) => setTimeout(r, 100));
        return JSON.parse(c.out().slice(at).split('\n').find((l) => l.includes('"received"'))!) as { subscribed: number; received: number; times: number[] };
      }),
    );
    apiCpu.stop();
    clientCpu.stop();
    const done = await json(bases[0]!, `/v1/tasks/${task.task_id}`, project.api_key);
    const finished = Date.parse(done.finished_at);
    const lags = lines.flatMap((l) => l.times.map((t) => t - finished));
    const last = finished + Math.max(...lags);
    return {
      apis,
      subscribers,
      clientProcs: clients.length,
      subscribed: lines.reduce((n, l) => n + l.subscribed, 0),
      received: lines.reduce((n, l) => n + l.received, 0),
      p50: pct(lags, 50),
      p99: pct(lags, 99),
      max: Math.max(...lags),
      apiRssMb: apiPids.map((pid) => Math.round(rssMb(pid).hwm)),
      apiCpuFanout: apiCpu.between(finished, last),
      apiCpuExport: apiCpu.total(),
      clientCpuFanout: clientCpu.between(finished, last),
      apiFanoutMs: await Promise.all(bases.map(fanoutMs)),
    };
  } finally {
    if (API_NODE_ARGS.length) await Promise.all(apiChildren.map(stopProfiled));
    for (const c of [...children, ...apiChildren]) c.child.kill('SIGKILL');
    await Promise.all([...children, ...apiChildren].map((c) => c.exited));
    await temporal.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

// `node --import tsx bench/ws.ts [subscribers] [layouts]`: layouts are API process counts, `1,2` by default.
if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 10_000);
  for (const apis of (process.argv[3] ?? '1,2').split(',').map(Number)) {
    const r = await benchWs(n, apis);
    console.log(JSON.stringify(r));
  }
}
