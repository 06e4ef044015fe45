// The WebSocket benchmark (issue 15): N subscribers to `*` on one API process (or N/2 on each of
// two), one 20,000-row export, and the lag from the task's finished_at to each subscriber's
// task.succeeded frame. Clients, the source, the worker and each API are processes of their own;
// Postgres carries the events between them (LISTEN/NOTIFY).
import postgres from 'postgres';
import { startDevServer } from '../platform/temporal-server.js';
import { freePort, type NodeChild, rssMb, spawnNode } from './measure.js';

const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const ADMIN = 'bench-admin-token-0123456789';

export interface WsResult {
  apis: number;
  subscribers: number;
  subscribed: number;
  received: number;
  p50: number;
  p99: number;
  max: number;
  apiRssMb: number[];
}

const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]! : NaN);

async function json(base: string, path: string, token: string, body?: unknown): Promise<{ api_key: string; task_id: string; finished_at: string }> {
  const res = await fetch(`${base}${path}`, { method: body ? 'POST' : 'GET', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  return (await res.json()) as { api_key: string; task_id: string; finished_at: string };
}

export async function benchWs(subscribers: number, apis: number): Promise<WsResult> {
  const dbName = `dc_bench_ws_${Date.now()}`;
  const admin = postgres(`${PG}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const temporal = await startDevServer({ port: await freePort() });
  const children: NodeChild[] = [];
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
    const apiPids: number[] = [];
    for (let i = 0; i < apis; i++) {
      const port = await freePort();
      const api = spawnNode(['app/api.ts'], { ...env, PORT: String(port) });
      children.push(api);
      await api.ready('api listening');
      bases.push(`http://127.0.0.1:${port}`);
      apiPids.push(api.child.pid!);
    }
    const project = await json(bases[0]!, '/v1/projects', ADMIN, { name: 'bench-ws', source_hosts: ['127.0.0.1'] });
    const clientsPer = Math.ceil(subscribers / apis);
    const clients = bases.map((b) => spawnNode(['bench/ws-clients.ts', b.replace(/^http/, 'ws'), project.api_key, String(clientsPer)], {}));
    children.push(...clients);
    for (const c of clients) await c.ready('ready ');
    const task = await json(bases[0]!, '/v1/tasks', project.api_key, { source_url: `http://127.0.0.1:${srcPort}/export?total=20000`, operator_id: 'bench', page_size: 1000 });
    for (const c of clients) {
      c.child.stdin!.write(`${task.task_id}\n`);
    }
    const lines = await Promise.all(
      clients.map(async (c) => {
        const at = c.out().length;
        while (!c.out().slice(at).includes('"received"')) await new Promise((r) => setTimeout(r, 100));
        return JSON.parse(c.out().slice(at).split('\n').find((l) => l.includes('"received"'))!) as { subscribed: number; received: number; times: number[] };
      }),
    );
    const done = await json(bases[0]!, `/v1/tasks/${task.task_id}`, project.api_key);
    const finished = Date.parse(done.finished_at);
    const lags = lines.flatMap((l) => l.times.map((t) => t - finished));
    return {
      apis,
      subscribers,
      subscribed: lines.reduce((n, l) => n + l.subscribed, 0),
      received: lines.reduce((n, l) => n + l.received, 0),
      p50: pct(lags, 50),
      p99: pct(lags, 99),
      max: Math.max(...lags),
      apiRssMb: apiPids.map((pid) => Math.round(rssMb(pid).hwm)),
    };
  } finally {
    for (const c of children) c.child.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await temporal.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 10_000);
  for (const apis of [1, 2]) {
    const r = await benchWs(n, apis);
    console.log(JSON.stringify(r));
  }
}
