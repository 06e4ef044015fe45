// A worker SIGKILLed in the middle of a big file's upload onto a real sshd (test/support/
// sftp-server.ts), over a throttled link: the next worker finds the temporary file, checks its end
// and writes on from there, renames it whole, then writes the manifest. At no moment does the
// final name hold a partial file, and the server ends with exactly the file, the manifest and no
// temporary file.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { type SftpServer, startSftpServer } from '../support/sftp-server.js';
import { type SourceServer, startSource } from '../support/source-server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { startWorkerProcess, type WorkerProcess, workerEnv } from '../support/worker-process.js';

// ~100 bytes a row: about 25 MB of CSV.
const TOTAL = 250_000;
const row = (i: number) => ({ id: i + 1, text: `row ${i + 1} `.padEnd(90, 'x') });
// The uplink to the server: slow enough that the kill lands mid-upload (about six seconds for the file).
const UP_BYTES_PER_SECOND = 4 * 1024 * 1024;
const KILL_AFTER = 6 * 1024 * 1024;

let env: TestEnv;
let server: SftpServer;
let proxy: TcpProxy;
let src: SourceServer;
const workers: WorkerProcess[] = [];
const worker = async () => {
  const w = await startWorkerProcess(workerEnv(env.config));
  workers.push(w);
  return w;
};

beforeAll(async () => {
  [env, server] = await Promise.all([startTestEnv({}, { worker: false }), startSftpServer()]);
  proxy = await startTcpProxy(`http://${server.host}:${server.port}`, { upBytesPerSecond: UP_BYTES_PER_SECOND });
  src = await startSource({ total: TOTAL, row });
}, 120_000);
afterAll(async () => {
  await Promise.all(workers.map((w) => w.kill()));
  await src?.close();
  await proxy?.close();
  await env?.close();
  await server?.stop();
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const list = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** Polls the server's disk until the temporary file holds `bytes`; meanwhile the final name must hold nothing. */
async function waitForTemporary(dir: string, bytes: number, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const names = list(dir);
    expect(names.filter((n) => !n.includes('.part-'))).toEqual([]);
    const temp = names.find((n) => n.startsWith('big.csv.part-'));
    if (temp && statSync(join(dir, temp)).size >= bytes) return;
    if (Date.now() > deadline) throw new Error(`no temporary file in ${dir} reached ${bytes} bytes`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('a worker killed mid-upload: the next one writes on from the temporary file, one complete file under the final name', async () => {
  const { api_key } = await env.createProject({ destination_hosts: ['127.0.0.1'] });
  const body = {
    name: 'slow partner',
    kind: 'sftp',
    host: '127.0.0.1',
    port: Number(new URL(proxy.url).port),
    username: server.user,
    private_key: server.privateKey,
    host_key_sha256: server.hostKeySha256,
    path: server.incoming,
  };
  const dest = await env.api('POST', '/v1/destinations', { token: api_key, body });
  expect(dest.status, JSON.stringify(dest.json)).toBe(201);
  const first = await worker();
  const res = await env.api('POST', '/v1/tasks', { token: api_key, body: { source_url: src.url, operator_id: 'op', page_size: 1000, file_name: 'big', destination_id: dest.json.destination_id } });
  expect(res.status).toBe(202);
  const taskId = res.json.task_id;
  const dir = join(server.incoming, taskId);

  await waitForTemporary(dir, KILL_AFTER);
  await first.kill('SIGKILL');
  const upBeforeKill = proxy.bytesUp();
  const left = list(dir);
  expect(left.filter((n) => !n.includes('.part-'))).toEqual([]);
  await worker();
  const task = await env.waitForTask(taskId, api_key, undefined, 240_000);
  expect(task.status, JSON.stringify(task.error)).toBe('succeeded');
  const file = task.files[0];
  expect(task.files).toHaveLength(1);
  expect(file.delivered_to).toBe(`sftp://127.0.0.1:${new URL(proxy.url).port}${server.incoming}/${taskId}/big.csv`);

  const files = server.files(dir);
  expect([...files.keys()].sort()).toEqual(['big.csv', 'manifest.json']);
  const copy = files.get('big.csv')!;
  expect(copy.length).toBe(file.bytes);
  expect(sha256(copy)).toBe(file.sha256);
  expect(copy.equals(Buffer.from(await (await fetch(file.url)).arrayBuffer()))).toBe(true);
  expect(JSON.parse(files.get('manifest.json')!.toString()).files).toEqual([expect.objectContaining({ name: 'big.csv', bytes: file.bytes, sha256: file.sha256, rows: TOTAL })]);
  // Written on, not started over: what went up after the kill is the rest of the file (plus SSH's
  // own traffic and the 1 MiB tail read back), not the whole file again.
  expect(upBeforeKill).toBeGreaterThan(KILL_AFTER);
  expect(proxy.bytesUp() - upBeforeKill).toBeLessThan(file.bytes - KILL_AFTER + 1024 * 1024);
}, 300_000);

it('a task cancelled mid-upload: the temporary file is removed, nothing stays on the server', async () => {
  const { api_key } = await env.createProject({ destination_hosts: ['127.0.0.1'] });
  const body = { name: 'cancelled', kind: 'sftp', host: '127.0.0.1', port: Number(new URL(proxy.url).port), username: server.user, private_key: server.privateKey, host_key_sha256: server.hostKeySha256, path: server.incoming };
  const dest = await env.api('POST', '/v1/destinations', { token: api_key, body });
  expect(dest.status).toBe(201);
  if (workers.every((w) => w.child.exitCode !== null)) await worker();
  const res = await env.api('POST', '/v1/tasks', { token: api_key, body: { source_url: src.url, operator_id: 'op', page_size: 1000, file_name: 'big', destination_id: dest.json.destination_id } });
  expect(res.status).toBe(202);
  const taskId = res.json.task_id;
  const dir = join(server.incoming, taskId);

  await waitForTemporary(dir, 2 * 1024 * 1024);
  const cancel = await env.api('POST', `/v1/tasks/${taskId}/cancel`, { token: api_key, body: {} });
  expect(cancel.status, JSON.stringify(cancel.json)).toBe(202);
  const task = await env.waitForTask(taskId, api_key, undefined, 60_000);
  expect(task.status).toBe('cancelled');
  // The activity learns of the cancel at its next heartbeat or checkpoint, then removes the temporary file.
  const deadline = Date.now() + 30_000;
  while (list(dir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  expect(list(dir)).toEqual([]);
}, 180_000);
