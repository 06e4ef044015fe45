// Shutdown (docs/operations.md#readiness-and-shutdown): /readyz turns 503 the moment SIGTERM arrives while the API still
// answers, WebSockets close with 1001, and a worker given SIGTERM mid-export hands its activity
// back within its grace time, so the export completes on the next worker with exactly the source's rows.
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiProcess } from '../support/api-process.js';
import { fetchHolders, waitForPages } from '../support/crash.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { freePort } from '../support/ports.js';
import { parseProm, sample } from '../support/prom.js';
import { type SourceServer, startSource } from '../support/source-server.js';
import { startWorkerProcess, type WorkerProcess, workerEnv } from '../support/worker-process.js';
import { connect } from '../support/ws-client.js';

// 60,000 rows at page_size 500: 120 pages in one lane (two fetch activities of 100 and 20 pages).
const TOTAL = 60_000;
const GRACE_MS = 1500;
// Far longer than the hand-over may take: a worker that vanished would hold the fetch this long.
const HEARTBEAT_TIMEOUT_MS = 30_000;

let env: TestEnv;
let src: SourceServer;
let project: { project_id: string; api_key: string };
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  env = await startTestEnv({ FETCH_HEARTBEAT_TIMEOUT_MS: String(HEARTBEAT_TIMEOUT_MS) }, { worker: false });
  src = await startSource({ total: TOTAL, delayMs: (r) => (r.pageSize === 1 ? 0 : 60) });
  project = await env.createProject({ source_hosts: [src.host] });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await src?.close();
  await env?.close();
});

describe('an API process on SIGTERM', () => {
  it('answers /readyz 503 at once, keeps answering for SHUTDOWN_DELAY_MS, then closes WebSockets with 1001 and exits 0', async () => {
    const api = await startApiProcess(env, { SHUTDOWN_DELAY_MS: '2000', LOG_LEVEL: 'info' });
    expect((await fetch(`${api.base}/readyz`)).status).toBe(200);
    const ws = await connect(api.base, { token: project.api_key });
    ws.send({ subscribe: '*' });
    await ws.next((m) => m.subscribed === '*');

    const signalled = Date.now();
    api.child.kill('SIGTERM');
    let notReady: number;
    for (;;) {
      const res = await fetch(`${api.base}/readyz`);
      if (res.status === 503) {
        notReady = Date.now() - signalled;
        expect(await res.json()).toEqual({ status: 'stopping' });
        break;
      }
      expect(Date.now() - signalled).toBeLessThan(1000);
    }
    expect(notReady).toBeLessThan(500);
    // Still serving everything else while load balancers take it out of rotation.
    expect((await fetch(`${api.base}/healthz`)).status).toBe(200);
    expect((await fetch(`${api.base}/v1/tasks`, { headers: { authorization: `Bearer ${project.api_key}` } })).status).toBe(200);
    // A new WebSocket is refused with 503 shutting_down, not accepted only to be closed moments later.
    const refused = await connect(api.base, { token: project.api_key }).then(
      () => 0,
      (e: { statusCode?: number }) => e.statusCode,
    );
    expect(refused).toBe(503);

    const closed = await ws.closed;
    expect(closed).toEqual({ code: 1001, reason: 'server shutting down' });
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(2000);
    expect(await api.exited).toBe(0);
    console.log(`[shutdown] /readyz 503 after ${notReady} ms; WebSocket 1001 after ${Date.now() - signalled} ms`);
    expect(api.output()).toContain('SIGTERM: shutting down');
  });
});

describe('a worker on SIGTERM mid-export', () => {
  it('hands its fetch back within the grace time; the next worker finishes with exactly the source rows', async () => {
    const metricsPort = await freePort();
    const first = await startWorkerProcess(workerEnv(env.config, { WORKER_SHUTDOWN_GRACE_MS: String(GRACE_MS), WORKER_METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info' }));
    workers.push(first);
    // The worker's own /metrics: the admin token, and the SDK's worker series beside ours.
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(401);
    const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(scrape.status).toBe(200);
    const samples = parseProm(await scrape.text());
    expect(sample(samples, 'temporal_worker_start', { namespace: 'default', service_name: 'temporal-core-sdk', task_queue: env.config.TEMPORAL_TASK_QUEUE })).toBe(1);

    // Both workers poll; the one holding the fetch gets SIGTERM.
    const second = await startWorkerProcess(workerEnv(env.config, { WORKER_SHUTDOWN_GRACE_MS: String(GRACE_MS), LOG_LEVEL: 'warn' }));
    workers.push(second);
    const res = await env.api('POST', '/v1/tasks', { token: project.api_key, body: { source_url: src.url, operator_id: 'drain', page_size: 500 } });
    expect(res.status).toBe(202);
    const taskId = res.json.task_id as string;
    await waitForPages(src, 20);
    const [holder] = (await fetchHolders(env.temporal, taskId)).map((identity) => Number(identity.split('@')[0]));
    const [stopping, staying] = holder === first.pid ? [first, second] : [second, first];
    expect(stopping.pid).toBe(holder);

    const signalled = Date.now();
    await stopping.kill('SIGTERM');
    const drainMs = Date.now() - signalled;
    const servedBefore = src.pageCounts().size;
    expect(servedBefore).toBeLessThan(120);
    const task = await env.waitForTask(taskId, project.api_key, undefined, 60_000);
    expect(task.status).toBe('succeeded');
    // The first page the next worker asked for came long before a heartbeat timeout could have freed it.
    const resumedAt = src.requests.find((r) => r.at > signalled + drainMs && r.pageSize !== 1)!.at;
    const handOverMs = resumedAt - signalled;
    console.log(`[shutdown] worker drained in ${drainMs} ms (grace ${GRACE_MS} ms); next worker fetching after ${handOverMs} ms; ${servedBefore} of 120 pages served before`);
    expect(drainMs).toBeLessThan(GRACE_MS + 5000);
    expect(handOverMs).toBeLessThan(HEARTBEAT_TIMEOUT_MS / 3);
    expect(stopping.output()).toContain('worker drained');
    expect(stopping.output()).not.toContain('shutdown step failed');
    expect(staying.child.exitCode).toBeNull();

    // Exactly the source's rows, each once, in order.
    const text = await (await fetch(task.files[0].url)).text();
    const rows = parse(text.replace(/^\uFEFF/, ''), { columns: true }) as Array<{ id: string }>;
    expect(rows).toHaveLength(TOTAL);
    expect(rows.every((r, i) => Number(r.id) === i + 1)).toBe(true);
    expect(task.files[0].rows).toBe(TOTAL);
    expect(src.pageCounts().size).toBe(120);
  });
});
