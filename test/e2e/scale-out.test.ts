// Scale-out on the parts a cluster uses, every process separate and started from the `npm run
// build` output with plain node: Postgres, SeaweedFS as the S3 store, a Temporal dev server with a
// database file standing in for the cluster (so it survives a restart), two API processes and three
// workers. 30 exports of three projects are submitted through both APIs; mid-way one worker and one
// API are SIGKILLed, then the Temporal server is killed and started again while exports run. Every
// export must end with exactly its source's rows, in one file, downloadable through its presigned
// URL, and nothing may be left running or staged.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomToken } from '../../platform/crypto.js';
import { loadConfig } from '../../platform/config.js';
import { createStorage } from '../../platform/storage/index.js';
import { type DevServer, startDevServer } from '../../platform/temporal-server.js';
import { buildDist, healthcheck, type NodeProcess, startCompiled } from '../support/cluster.js';
import { ADMIN, createDatabase, dropDatabase, s3Env } from '../support/env.js';
import { freePort } from '../support/ports.js';
import { sourcePool, type SourceServer } from '../support/source-server.js';

const EXPORTS = 30;
const PAGE_SIZE = 100;
// 2,000 … 7,017 rows: 20 … 71 pages, one lane each, ~1–3.5 s of fetching at this delay a page, so
// that with 4 running per project the kills and the restart land while exports are in flight.
const totalOf = (i: number) => 2000 + i * 173;
const PAGE_DELAY_MS = 50;

const dir = mkdtempSync(join(tmpdir(), 'dc-scale-'));
const pool = sourcePool();
let temporal: DevServer;
let temporalPort: number;
let client: Client;
let databaseUrl: string;
let sql: postgres.Sql;
let env: Record<string, string>;
const apis: Array<NodeProcess & { base: string }> = [];
const workers: Array<NodeProcess & { healthPort: number }> = [];
let built: { rebuilt: boolean; buildMs: number; setupMs: number };

const temporalDb = join(dir, 'temporal.db');
const startTemporal = () => startDevServer({ port: temporalPort, dbFile: temporalDb });

async function startApi(n: number) {
  const port = await freePort();
  const p = await startCompiled(`api-${n}`, 'app/api.js', { ...env, PORT: String(port), DATA_DIR: join(dir, `api-${n}`) }, 'api listening');
  apis.push({ ...p, base: `http://127.0.0.1:${port}` });
}

async function startWorker(n: number) {
  const healthPort = await freePort();
  const p = await startCompiled(`worker-${n}`, 'app/worker.js', { ...env, HEALTH_PORT: String(healthPort), WORKER_METRICS_PORT: '0', DATA_DIR: join(dir, `worker-${n}`) }, 'worker polling');
  workers.push({ ...p, healthPort });
}

async function call(base: string, method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: (await res.json()) as any };
}

async function statusCounts(): Promise<Record<string, number>> {
  const rows = await sql<{ status: string; n: number }[]>`select status, count(*)::int as n from tasks group by status`;
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

async function waitFor(what: string, cond: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await statusCounts())}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** How many in-flight activities of running exports each worker process holds, by pid. */
async function activitiesByPid(): Promise<Map<number, number>> {
  const running = await sql<{ id: string }[]>`select id from tasks where status = 'running'`;
  const byPid = new Map<number, number>();
  for (const { id } of running) {
    const d = await client.workflow.getHandle(id).describe().catch(() => null);
    for (const a of d?.raw.pendingActivities ?? []) {
      const pid = Number(a.lastWorkerIdentity?.split('@')[0]);
      if (pid) byPid.set(pid, (byPid.get(pid) ?? 0) + 1);
    }
  }
  return byPid;
}

beforeAll(async () => {
  const t0 = Date.now();
  const b = await buildDist();
  built = { rebuilt: b.rebuilt, buildMs: Date.now() - t0, setupMs: 0 };
  temporalPort = await freePort();
  [temporal, databaseUrl] = await Promise.all([startTemporal(), createDatabase()]);
  client = new Client({ connection: await Connection.connect({ address: temporal.address }) });
  sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: `scale-${randomToken(6)}`,
    ADMIN_TOKEN: ADMIN,
    LINK_SECRET: 'scale-link-secret-0123456789',
    ...s3Env(),
    FETCH_HEARTBEAT_TIMEOUT_MS: '3000',
    SOURCE_RETRY_INITIAL_MS: '200',
    LOG_LEVEL: 'warn',
  };
  // The first API migrates; the others find the schema in place (they would wait on the migration lock).
  await startApi(0);
  await Promise.all([startApi(1), startWorker(0), startWorker(1), startWorker(2)]);
  built.setupMs = Date.now() - t0 - built.buildMs;
}, 240_000);

afterAll(async () => {
  await Promise.all([...apis, ...workers].map((p) => p.kill()));
  await client?.connection.close();
  await temporal?.stop();
  await sql?.end();
  await pool.closeSources();
  if (databaseUrl) await dropDatabase(databaseUrl);
  rmSync(dir, { recursive: true, force: true });
});

it('two APIs and three workers from dist/ survive a killed worker, a killed API and a Temporal restart', async () => {
  const started = Date.now();
  const [apiA, apiB] = [apis[0]!, apis[1]!];
  // the compiled worker found its prebuilt workflow bundle: nothing was bundled at start
  for (const w of workers) expect(existsSync(join(dir, w.name, 'cache'))).toBe(false);
  expect(await healthcheck({ ...env, PORT: new URL(apiB.base).port })).toBe(0);
  expect(await healthcheck({ ...env, HEALTH_PORT: String(workers[0]!.healthPort) })).toBe(0);

  // three projects, 10 exports each, every one from its own source, submitted alternately to A and B
  const projects: Array<{ project_id: string; api_key: string }> = [];
  for (const name of ['merchants', 'cards', 'partners']) {
    const res = await call(apiA.base, 'POST', '/v1/projects', ADMIN, { name, source_hosts: ['127.0.0.1'] });
    expect(res.status).toBe(201);
    projects.push(res.json);
  }
  const sources: SourceServer[] = await Promise.all(
    Array.from({ length: EXPORTS }, (_, i) => pool.source({ total: totalOf(i), delayMs: (r) => (r.pageSize === 1 ? 0 : PAGE_DELAY_MS) })),
  );
  const submit = (i: number, api: { base: string }) =>
    call(api.base, 'POST', '/v1/tasks', projects[i % 3]!.api_key, { source_url: sources[i]!.url, operator_id: `op-${i % 5}`, page_size: PAGE_SIZE, file_name: `export-${i}` }, { 'Idempotency-Key': `scale-${i}` });
  const submitted = await Promise.all(Array.from({ length: EXPORTS }, (_, i) => submit(i, i % 2 ? apiB : apiA)));
  expect(submitted.map((r) => r.status)).toEqual(Array(EXPORTS).fill(202));
  const taskIds = submitted.map((r) => r.json.task_id as string);

  // mid-way: SIGKILL the worker holding the most in-flight activities, and API A
  await waitFor('a quarter of the exports', async () => ((await statusCounts()).succeeded ?? 0) >= EXPORTS / 4, 90_000);
  const held = await activitiesByPid();
  const victim = workers.reduce((a, b) => ((held.get(b.pid) ?? 0) > (held.get(a.pid) ?? 0) ? b : a));
  expect(held.get(victim.pid) ?? 0).toBeGreaterThan(0);
  await Promise.all([victim.kill('SIGKILL'), apiA.kill('SIGKILL')]);
  const killMs = Date.now() - started;
  const atKill = await statusCounts();
  expect(atKill.succeeded ?? 0).toBeLessThan(EXPORTS);
  expect(await healthcheck({ ...env, PORT: new URL(apiA.base).port })).not.toBe(0);
  // the same Idempotency-Key through the surviving API gives the same task
  const again = await submit(0, apiB);
  expect([again.status, again.json.task_id]).toEqual([200, taskIds[0]]);

  // then: the Temporal server dies and comes back on the same database file, exports in flight
  await waitFor('half of the exports', async () => ((await statusCounts()).succeeded ?? 0) >= EXPORTS / 2, 90_000);
  const atRestart = await statusCounts();
  expect((atRestart.running ?? 0) + (atRestart.queued ?? 0)).toBeGreaterThan(0);
  temporal.child.kill('SIGKILL');
  await new Promise<void>((resolve) => (temporal.child.exitCode !== null || temporal.child.signalCode !== null ? resolve() : temporal.child.once('exit', () => resolve())));
  const downAt = Date.now();
  const restartMs = downAt - started;
  temporal = await startTemporal();
  const downMs = Date.now() - downAt;

  await waitFor('every export to finish', async () => ((await statusCounts()).succeeded ?? 0) === EXPORTS, 150_000);

  // no task stuck: every row succeeded, every export workflow completed (its last step runs just
  // after the row turns succeeded), none still running
  expect(await statusCounts()).toEqual({ succeeded: EXPORTS });
  await Promise.all(taskIds.map((id) => client.workflow.getHandle(id).result()));
  for (const id of taskIds) expect((await client.workflow.getHandle(id).describe()).status.name).toBe('COMPLETED');
  const stillRunning = [];
  for await (const w of client.workflow.list({ query: `WorkflowType = 'exportWorkflow' AND ExecutionStatus = 'Running'` })) stillRunning.push(w.workflowId);
  expect(stillRunning).toEqual([]);
  const finishedMs = Date.now() - started;

  // every export: exactly its source's rows, in order, once, in one file downloaded through its presigned URL
  const storage = createStorage(loadConfig({ ...env, DATA_DIR: dir }));
  for (let i = 0; i < EXPORTS; i++) {
    const res = await call(apiB.base, 'GET', `/v1/tasks/${taskIds[i]}`, projects[i % 3]!.api_key);
    expect(res.status).toBe(200);
    const task = res.json;
    expect(task.files).toHaveLength(1);
    const [file] = task.files;
    expect(file.rows).toBe(totalOf(i));
    expect(file.url.startsWith(`${env.S3_ENDPOINT}/${env.S3_BUCKET}/files/${task.task_id}/`)).toBe(true);
    expect(new URL(file.url).searchParams.get('X-Amz-Signature')).toBeTruthy();
    const got = await fetch(file.url);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-disposition')).toContain(`filename="export-${i}.csv"`);
    const body = Buffer.from(await got.arrayBuffer());
    expect(createHash('sha256').update(body).digest('hex')).toBe(file.sha256);
    const lines = body.toString('utf8').slice(1).trimEnd().split('\r\n').slice(1);
    const ids = lines.map((l) => Number(l.slice(0, l.indexOf(','))));
    expect(ids).toEqual(Array.from({ length: totalOf(i) }, (_, r) => r + 1));
    // no file doubled, nothing left staged
    expect(await storage.list(`files/${task.task_id}`)).toEqual([`files/${task.task_id}/1.csv`]);
    expect(await storage.list(`staging/${task.task_id}`)).toEqual([]);
  }
  expect(await storage.list('files')).toHaveLength(EXPORTS);
  // each project sees exactly its own ten
  for (const p of projects) {
    const list = await call(apiB.base, 'GET', '/v1/tasks?limit=100', p.api_key);
    expect(list.json.items.map((t: any) => t.status)).toEqual(Array(EXPORTS / 3).fill('succeeded'));
  }
  // the survivors are still up and healthy
  for (const p of [apiB, ...workers.filter((w) => w !== victim)]) expect(p.alive()).toBe(true);
  expect(await healthcheck({ ...env, HEALTH_PORT: String(workers.find((w) => w !== victim)!.healthPort) })).toBe(0);

  console.log(
    `[scale-out] build ${built.rebuilt ? `${(built.buildMs / 1000).toFixed(1)} s` : 'up to date'}; processes up in ${(built.setupMs / 1000).toFixed(1)} s; ` +
      `${EXPORTS} exports in ${(finishedMs / 1000).toFixed(1)} s (kills at ${(killMs / 1000).toFixed(1)} s, Temporal restart at ${(restartMs / 1000).toFixed(1)} s); ` +
      `at the kills ${JSON.stringify(atKill)} (victim held ${held.get(victim.pid)} activities); at the restart ${JSON.stringify(atRestart)}; Temporal down ${(downMs / 1000).toFixed(1)} s`,
  );
}, 240_000);
