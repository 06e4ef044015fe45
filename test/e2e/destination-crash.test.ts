// A worker SIGKILLed in the middle of a big file's multipart upload into the customer's bucket: the
// next worker continues the same upload from the parts the bucket holds, and the bucket ends with
// exactly one complete copy (its sha256 the task's), the manifest, and no upload left open.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUCKET, type CustomerBucket, sha256, startCustomerBucket, WRITER } from '../support/customer-bucket.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { type SourceServer, startSource } from '../support/source-server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startWorkerProcess, type WorkerProcess, workerEnv } from '../support/worker-process.js';

const PART = 5 * 1024 * 1024;
// ~100 bytes a row: about 25 MB of CSV, five parts.
const TOTAL = 250_000;
const row = (i: number) => ({ id: i + 1, text: `row ${i + 1} `.padEnd(90, 'x') });
// The uplink to the bucket: slow enough that the kill lands mid-upload (about a second a part).
const UP_BYTES_PER_SECOND = 4 * 1024 * 1024;

let env: TestEnv;
let customer: CustomerBucket;
let proxy: TcpProxy;
let src: SourceServer;
const workers: WorkerProcess[] = [];
const worker = async () => {
  const w = await startWorkerProcess(workerEnv(env.config, { DELIVERY_PART_BYTES: String(PART) }));
  workers.push(w);
  return w;
};

beforeAll(async () => {
  [env, customer] = await Promise.all([startTestEnv({ DELIVERY_PART_BYTES: String(PART) }, { worker: false }), startCustomerBucket()]);
  proxy = await startTcpProxy(customer.s3.endpoint, { upBytesPerSecond: UP_BYTES_PER_SECOND });
  src = await startSource({ total: TOTAL, row });
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await src?.close();
  await proxy?.close();
  await env?.close();
  await customer?.stop();
});

type Parts = { part: number }[];
const listParts = (key: string, uploadId: string) => (customer.admin as unknown as { listParts(b: string, k: string, u: string): Promise<Parts> }).listParts(BUCKET, key, uploadId);

async function waitForParts(prefix: string, parts: number, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [open] = await customer.incomplete(prefix);
    if (open && (await listParts(open.key, open.uploadId)).length >= parts) return;
    if (Date.now() > deadline) throw new Error(`no upload under ${prefix} reached ${parts} parts`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('a worker killed mid-upload: the next one completes it, one complete copy in the bucket', async () => {
  const { api_key } = await env.createProject({ destination_hosts: ['127.0.0.1'] });
  const body = { name: 'slow link', kind: 's3', endpoint: proxy.url, region: 'us-east-1', bucket: BUCKET, prefix: 'big', access_key_id: WRITER.accessKey, secret_access_key: WRITER.secretKey, path_style: true };
  const dest = await env.api('POST', '/v1/destinations', { token: api_key, body });
  expect(dest.status).toBe(201);
  const first = await worker();
  const res = await env.api('POST', '/v1/tasks', { token: api_key, body: { source_url: src.url, operator_id: 'op', page_size: 1000, file_name: 'big', destination_id: dest.json.destination_id } });
  expect(res.status).toBe(202);
  const taskId = res.json.task_id;

  await waitForParts('big/', 2);
  const upBeforeKill = proxy.bytesUp();
  await first.kill('SIGKILL');
  await worker();
  const task = await env.waitForTask(taskId, api_key, undefined, 240_000);
  expect(task.status, JSON.stringify(task.error)).toBe('succeeded');
  expect(task.files).toHaveLength(1);
  const file = task.files[0];
  expect(file.bytes).toBeGreaterThan(4 * PART);
  expect(file.delivered_to).toBe(`s3://${BUCKET}/big/${taskId}/big.csv`);

  const objects = await customer.objects('big/');
  expect([...objects.keys()].sort()).toEqual([`big/${taskId}/big.csv`, `big/${taskId}/manifest.json`]);
  const copy = objects.get(`big/${taskId}/big.csv`)!;
  expect(copy.length).toBe(file.bytes);
  expect(sha256(copy)).toBe(file.sha256);
  expect(JSON.parse(objects.get(`big/${taskId}/manifest.json`)!.toString()).files).toEqual([expect.objectContaining({ name: 'big.csv', bytes: file.bytes, sha256: file.sha256, rows: TOTAL })]);
  expect(await customer.incomplete('big/')).toEqual([]);
  // Continued, not started over: what went up after the kill is the rest of the file and at most
  // the part in flight again (a fresh upload would send the two finished parts once more).
  expect(upBeforeKill).toBeGreaterThan(2 * PART);
  expect(proxy.bytesUp() - upBeforeKill).toBeLessThan(file.bytes - 2 * PART + 1.5 * PART);
}, 300_000);

it('a task cancelled mid-upload: the open multipart upload is aborted, nothing left in the bucket', async () => {
  const { api_key } = await env.createProject({ destination_hosts: ['127.0.0.1'] });
  const body = { name: 'slow link', kind: 's3', endpoint: proxy.url, region: 'us-east-1', bucket: BUCKET, prefix: 'gone', access_key_id: WRITER.accessKey, secret_access_key: WRITER.secretKey, path_style: true };
  const dest = await env.api('POST', '/v1/destinations', { token: api_key, body });
  expect(dest.status).toBe(201);
  if (workers.length === 0) await worker();
  const res = await env.api('POST', '/v1/tasks', { token: api_key, body: { source_url: src.url, operator_id: 'op', page_size: 1000, file_name: 'big', destination_id: dest.json.destination_id } });
  expect(res.status).toBe(202);
  const taskId = res.json.task_id;

  await waitForParts('gone/', 1);
  const cancel = await env.api('POST', `/v1/tasks/${taskId}/cancel`, { token: api_key, body: {} });
  expect(cancel.status, JSON.stringify(cancel.json)).toBe(202);
  const task = await env.waitForTask(taskId, api_key, undefined, 60_000);
  expect(task.status).toBe('cancelled');
  // The activity learns of the cancel at its next heartbeat, then aborts the upload.
  const deadline = Date.now() + 30_000;
  while ((await customer.incomplete('gone/')).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  expect(await customer.incomplete('gone/')).toEqual([]);
  expect([...(await customer.objects('gone/')).keys()]).toEqual([]);
}, 180_000);
