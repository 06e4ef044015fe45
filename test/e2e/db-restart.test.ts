// The database taken away under a running export, in split mode (`npm run api` + `npm run worker`
// processes on a Postgres of the test's own): while it is down the API answers 503
// database_unavailable (never 500, never slower than its deadline) while /readyz stays 200; no process
// exits; the worker stops polling (app/worker-supervisor.ts logs the pause) and polls again by itself
// once it is back (the resume line); everything resumes and the export ends exact. A worker paused
// for the database still ends cleanly (exit 0) on SIGTERM.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForPages } from '../support/crash.js';
import { expectEveryRowOnce, type FaultCluster, startFaultCluster } from '../support/fault-cluster.js';
import { type OwnPostgres, startOwnPostgres } from '../support/own-postgres.js';
import { ADMIN } from '../support/env.js';
import { freePort } from '../support/ports.js';
import { type SourceServer, startSource } from '../support/source-server.js';

const TOTAL = 100_000;
const PAGE_SIZE = 500; // 200 pages
// The longest an answer may take while the database is down: connection refused is immediate,
// the rest is a loaded machine's slack.
const DEADLINE_MS = 10_000;

async function until(what: () => boolean, ms: number, why: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error(why());
    await new Promise((r) => setTimeout(r, 50));
  }
}

const workerHealth = async () => {
  const res = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
  return { status: res.status, json: await res.json() };
};

/** The worker's dc_worker_paused gauge, from its own /metrics. */
const pausedGauge = async () => {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
  return Number(/^dc_worker_paused (\d+)$/m.exec(await res.text())?.[1]);
};

let healthPort: number;
let metricsPort: number;
let pg: OwnPostgres;
let cluster: FaultCluster;
let src: SourceServer;

beforeAll(async () => {
  pg = await startOwnPostgres();
  [healthPort, metricsPort] = [await freePort(), await freePort()];
  const worker = { HEALTH_PORT: String(healthPort), WORKER_METRICS_PORT: String(metricsPort) };
  cluster = await startFaultCluster({ databaseUrl: pg.url, env: { FETCH_HEARTBEAT_TIMEOUT_MS: '5000' }, workers: [worker] });
  src = await startSource({ total: TOTAL, delayMs: (r) => (r.pageSize === 1 ? 0 : 40) });
}, 180_000);
afterAll(async () => {
  await cluster?.close();
  await src?.close();
  await pg?.close();
});

describe('Postgres stopped and restarted under a running export', () => {
  it('answers 503 meanwhile, no process exits, and the export ends exact', async () => {
    const key = await cluster.createProject();
    const taskId = await cluster.submit(key, { source_url: src.url, page_size: PAGE_SIZE, file_name: 'db-restart' });
    await waitForPages(src, 50);

    // Down for a few seconds: what every route that needs the database answers meanwhile.
    await pg.stop();
    const answers = [];
    const downUntil = Date.now() + 4000;
    while (Date.now() < downUntil) {
      answers.push(
        ...(await Promise.all([
          cluster.call('GET', `/v1/tasks/${taskId}`, { token: key }),
          cluster.call('GET', '/v1/tasks', { token: key }),
          cluster.call('POST', '/v1/tasks', { token: key, body: { operator_id: 'op', source_url: src.url } }),
        ])),
      );
    }
    for (const a of answers) {
      expect(a.status).toBe(503);
      expect(a.ms).toBeLessThan(DEADLINE_MS);
      expect(a.json.error.code).toBe('database_unavailable');
    }
    // Still ready: the replica stays in the load balancer to answer those 503s.
    expect(await cluster.call('GET', '/readyz')).toMatchObject({ status: 200, json: { status: 'ready' } });
    expect(cluster.exits()).toEqual([]);
    // The worker found the database unreachable through an activity, confirmed it, and stopped polling.
    const worker = cluster.workers[0]!;
    await until(() => worker.output().includes('worker paused'), 30_000, () => `no pause logged:\n${worker.output().slice(-3000)}`);
    expect(worker.output()).not.toContain('worker resumed');
    // 200 all the same: a restart would not help, the worker resumes by itself.
    expect(await workerHealth()).toEqual({ status: 200, json: { status: 'paused', checks: { worker: 'PAUSED', database: 'unavailable' } } });
    expect(await pausedGauge()).toBe(1);

    await pg.start();
    const backAt = Date.now();
    await until(() => worker.output().includes('worker resumed'), 60_000, () => `no resume logged:\n${worker.output().slice(-3000)}`);
    const pollingMs = Date.now() - backAt;
    const outageMs = Number(/"outage_ms":(\d+)/.exec(worker.output())?.[1]);
    expect(await workerHealth()).toEqual({ status: 200, json: { status: 'ok', checks: { worker: 'RUNNING' } } });
    expect(await pausedGauge()).toBe(0);
    let task = await cluster.call('GET', `/v1/tasks/${taskId}`, { token: key });
    while (task.status !== 200) task = await cluster.call('GET', `/v1/tasks/${taskId}`, { token: key });
    const answeringMs = Date.now() - backAt;
    const pagesAtReturn = src.pageCounts().size;

    // Fetching resumes; then a fast restart with queries in flight (what made the driver exit the process).
    const resumed = Date.now() + 90_000;
    while (src.pageCounts().size < Math.min(pagesAtReturn + 10, 150)) {
      if (Date.now() > resumed) throw new Error(`fetching did not resume: ${JSON.stringify((await cluster.call('GET', `/v1/tasks/${taskId}`, { token: key })).json)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await pg.restart();

    const ended = await cluster.waitForEnd(taskId, key, 180_000);
    const totalMs = Date.now() - backAt;
    const slowest = Math.max(...answers.map((a) => a.ms));
    console.log(
      `database down: ${answers.length} answers, all 503, the slowest in ${slowest} ms; back: worker polling again after ${pollingMs} ms (paused for ${outageMs} ms), the API answering after ${answeringMs} ms; export finished ${totalMs} ms after its return`,
    );
    await expectEveryRowOnce(ended, TOTAL);
    expect(cluster.exits()).toEqual([]);
    task = await cluster.call('GET', '/readyz');
    expect(task.status).toBe(200);
  }, 300_000);

  it('a worker paused for the database still ends cleanly on SIGTERM', async () => {
    const key = await cluster.createProject();
    const worker = cluster.workers[0]!;
    const pausesBefore = worker.output().split('worker paused').length;
    await cluster.submit(key, { source_url: src.url, page_size: PAGE_SIZE, file_name: 'db-sigterm' });
    const requestsBefore = src.requests.length;
    await until(() => src.requests.length > requestsBefore + 5, 60_000, () => 'the second export did not start fetching');
    await pg.stop();
    try {
      await until(() => worker.output().split('worker paused').length > pausesBefore, 30_000, () => `no pause logged:\n${worker.output().slice(-3000)}`);
      const signalled = Date.now();
      worker.child.kill('SIGTERM');
      await worker.exited;
      console.log(`paused worker: SIGTERM to exit in ${Date.now() - signalled} ms`);
      expect(worker.child.exitCode).toBe(0);
      expect(worker.output()).toContain('[download-center] stopped');
    } finally {
      await pg.start();
    }
  }, 120_000);
});
