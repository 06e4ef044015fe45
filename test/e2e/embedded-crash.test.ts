// The whole embedded `npm start` (API, worker, PGlite, spawned Temporal) killed with SIGKILL
// mid-export, then started again on the same DATA_DIR and ports: the export completes correctly.
import { afterAll, expect, it } from 'vitest';
import { sha256Of, waitForPages } from '../support/crash.js';
import { cleanUpEmbedded, type Embedded, startEmbedded } from '../support/embedded.js';
import { freePort } from '../support/ports.js';
import { type SourceServer, startSource } from '../support/source-server.js';

const TOTAL = 250_000;
const PAGE_SIZE = 500;
const env = { FETCH_HEARTBEAT_TIMEOUT_MS: '3000', DEMO_SOURCE: 'off' };

let svc: Embedded | undefined;
let src: SourceServer | undefined;

afterAll(() => cleanUpEmbedded(svc, src));

const call = (method: string, path: string, token: string, body?: unknown) => svc!.call(method, path, token, body);

// A deadline rather than a count of polls: on a loaded machine each poll itself is slow.
async function waitDone(taskId: string, key: string, timeoutMs = 180_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = (await call('GET', `/v1/tasks/${taskId}`, key)).json;
    if (!['queued', 'running'].includes(task.status)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status}/${task.stage} after ${timeoutMs} ms: ${JSON.stringify(task.progress)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('completes an export after the whole process group was SIGKILLed and started again', async () => {
  src = await startSource({ total: TOTAL, delayMs: (r) => (r.pageSize === 1 ? 0 : 30) });
  const ports = { port: await freePort(), temporal: await freePort(), ui: await freePort() };
  svc = await startEmbedded({ env, ports });
  const admin = svc.adminToken();
  const project = await call('POST', '/v1/projects', admin, { name: 'crash', source_hosts: [src.host] });
  const key = project.json.api_key as string;
  const submitted = await call('POST', '/v1/tasks', key, { source_url: src.url, operator_id: 'op', page_size: PAGE_SIZE, file_name: 'crashed' });
  expect(submitted.status).toBe(202);
  const taskId = submitted.json.task_id as string;

  await waitForPages(src, 150);
  const dataDir = svc.dataDir;
  svc.signal('SIGKILL');
  await svc.exited;
  const servedBeforeKill = src.pageCounts().size;
  expect(servedBeforeKill).toBeLessThan(500);

  // Same DATA_DIR and ports: app/start.ts kills the orphaned dev server and reopens temporal.db.
  svc = await startEmbedded({ dataDir, ports, env });
  const task = await waitDone(taskId, key);
  expect(task.status).toBe('succeeded');
  expect(task.files[0].rows).toBe(TOTAL);
  expect(Math.max(...src.pageCounts().values())).toBeLessThanOrEqual(2);
  expect(src.pageCounts().size).toBe(500);

  src.requests.length = 0;
  const ref = await call('POST', '/v1/tasks', key, { source_url: src.url, operator_id: 'op', page_size: PAGE_SIZE, file_name: 'reference' });
  const refTask = await waitDone(ref.json.task_id, key);
  expect(refTask.files[0].sha256).toBe(task.files[0].sha256);
  expect(await sha256Of(task.files[0].url)).toBe(refTask.files[0].sha256);
}, 420_000);
