// `npm start` runs its worker as a child process reaching PGlite over the loopback (app/embedded-worker.ts,
// db/wire.ts). Killed mid-export, the worker process is started again by the API process, which stayed
// up and answering (sync exports included: they run in the API process); the export completes
// exactly, and /metrics holds the worker's series.
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { sha256Of, waitForPages } from '../support/crash.js';
import { cleanUpEmbedded, type Embedded, pidAlive, startEmbedded, workerPids } from '../support/embedded.js';
import { type SourceServer, startSource } from '../support/source-server.js';

const TOTAL = 100_000;
const PAGE_SIZE = 500;

let svc: Embedded | undefined;
let src: SourceServer | undefined;
let small: SourceServer | undefined;
const SMALL = 250;

afterAll(async () => {
  await small?.close();
  await cleanUpEmbedded(svc, src);
});

/** A process's niceness, from /proc/<pid>/stat (the 19th field). */
const niceness = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);

// Its worker runs below the other test file's processes: given the time that costs on a busy machine.
it('starts a killed worker process again while the API keeps answering, and the export completes exactly', { timeout: 150_000 }, async () => {
  src = await startSource({ total: TOTAL, delayMs: (r) => (r.pageSize === 1 ? 0 : 20) });
  small = await startSource({ total: SMALL });
  // WORKER_NICE as npm start has it by default (the suite runs its workers at 0: vitest.config.ts).
  svc = await startEmbedded({ env: { FETCH_HEARTBEAT_TIMEOUT_MS: '3000', DEMO_SOURCE: 'off', WORKER_NICE: '10' } });
  const [first] = workerPids(svc.dataDir);
  expect(first).toBeGreaterThan(0);
  // Exports are batch work: the worker process runs at niceness 10, below the API's (which has this
  // test's); a niceness is never lowered.
  expect(niceness(first!)).toBe(Math.max(niceness(process.pid), 10));
  const admin = svc.adminToken();
  const key = (await svc.call('POST', '/v1/projects', admin, { name: 'worker-kill', source_hosts: [src.host, small.host] })).json.api_key as string;
  const submitted = await svc.call('POST', '/v1/tasks', key, { source_url: src.url, operator_id: 'op', page_size: PAGE_SIZE, file_name: 'killed' });
  expect(submitted.status).toBe(202);
  const taskId = submitted.json.task_id as string;

  await waitForPages(src, 40);
  process.kill(first!, 'SIGKILL');
  await expect.poll(() => pidAlive(first!)).toBe(false);
  // The API process is still there and answers while its worker is gone.
  expect((await svc.call('GET', `/v1/tasks/${taskId}`, key)).status).toBe(200);
  // A sync export runs in the API process itself (docs/adr/0054-sync-runs-in-the-api-process.md):
  // answered with its file, started eagerly on the API process's own worker (the worker process is
  // gone or just starting again).
  {
    const res = await fetch(`${svc.base}/v1/tasks/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source_url: `${small!.url}`, operator_id: 'op', page_size: 100 }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('server-timing')).toMatch(/start;dur=[0-9.]+;desc="eager"/);
    expect((await res.text()).split('\r\n').filter(Boolean)).toHaveLength(SMALL + 1);
  }
  await expect.poll(() => workerPids(svc!.dataDir).filter((p) => p !== first).length, { timeout: 30_000 }).toBe(1);
  expect(svc.output()).toContain('the worker process ended: starting it again');

  const deadline = Date.now() + 180_000;
  let task = (await svc.call('GET', `/v1/tasks/${taskId}`, key)).json;
  while (['queued', 'running'].includes(task.status) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    task = (await svc.call('GET', `/v1/tasks/${taskId}`, key)).json;
  }
  expect(task.status).toBe('succeeded');
  expect(task.files[0].rows).toBe(TOTAL);
  const file = Buffer.from(await (await fetch(task.files[0].url)).arrayBuffer());
  expect(file.toString('utf8').slice(1).split('\r\n').filter(Boolean)).toHaveLength(TOTAL + 1);
  expect(await sha256Of(task.files[0].url)).toBe(task.files[0].sha256);
  expect(new Set(file.toString('utf8').split('\r\n').slice(1, -1)).size).toBe(TOTAL); // no row twice

  // /metrics holds the worker process's series (its export ended there) beside the API's.
  const metrics = await (await fetch(`${svc.base}/metrics`, { headers: { authorization: `Bearer ${admin}` } })).text();
  expect(metrics).toMatch(/dc_exports_finished_total\{[^}]*status="succeeded"[^}]*\} 1/);
  expect(metrics).toMatch(/dc_http_request_duration_seconds_count\{/);
  expect(metrics).toMatch(/^temporal_/m);
});
