// The split deployment for the fault tests (test/e2e/db-restart.test.ts, storage-outage.test.ts,
// disk-full.test.ts):
// `npm run api` and `npm run worker` as processes of their own, on a database and store the test
// may take away and give back, with the suite's Temporal dev server. Every process's exit is
// recorded, so a test can assert that none happened.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { expect, inject } from 'vitest';
import { type Config, loadConfig } from '../../platform/config.js';
import { randomToken } from '../../platform/crypto.js';
import { type ApiProcess, startApiProcess } from './api-process.js';
import { ADMIN } from './env.js';
import { startWorkerProcess, type WorkerProcess, workerEnv } from './worker-process.js';

export interface Answer {
  status: number;
  json: any;
  ms: number;
}

export interface FaultCluster {
  config: Config;
  api: ApiProcess;
  workers: WorkerProcess[];
  call(method: string, path: string, opts?: { token?: string; body?: unknown }): Promise<Answer>;
  createProject(): Promise<string>;
  submit(key: string, body: Record<string, unknown>): Promise<string>;
  /** Polls the task until it ends, riding out 503s while a dependency is away. */
  waitForEnd(taskId: string, key: string, timeoutMs?: number): Promise<any>;
  /** The processes that exited, with their output's tail (none should). */
  exits(): string[];
  close(): Promise<void>;
}

export async function startFaultCluster(opts: { databaseUrl: string; env?: Record<string, string>; workers?: Record<string, string>[] }): Promise<FaultCluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-fault-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: opts.databaseUrl,
    ADMIN_TOKEN: ADMIN,
    LINK_SECRET: 'test-link-secret-0123456789',
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `fault-${randomToken(6)}`,
    SOURCE_RETRY_INITIAL_MS: '200',
    ...opts.env,
  });
  const api = await startApiProcess({ config, databaseUrl: opts.databaseUrl }, { ...opts.env });
  const workers: WorkerProcess[] = [];
  for (const extra of opts.workers ?? [{}]) workers.push(await startWorkerProcess(workerEnv(config, { ...opts.env, ...extra })));

  const outputs = () => [`api:\n${api.output().slice(-2000)}`, ...workers.map((w) => `worker ${w.pid}:\n${w.output().slice(-4000)}`)].join('\n');
  const call: FaultCluster['call'] = async (method, path, o = {}) => {
    const started = Date.now();
    const headers: Record<string, string> = o.token ? { authorization: `Bearer ${o.token}` } : {};
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${api.base}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), signal: AbortSignal.timeout(60_000) });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, json, ms: Date.now() - started };
  };
  return {
    config,
    api,
    workers,
    call,
    async createProject() {
      const res = await call('POST', '/v1/projects', { token: ADMIN, body: { name: 'faults', source_hosts: ['127.0.0.1'] } });
      if (res.status !== 201) throw new Error(`createProject: ${res.status} ${JSON.stringify(res.json)}`);
      return res.json.api_key as string;
    },
    async submit(key, body) {
      const res = await call('POST', '/v1/tasks', { token: key, body: { operator_id: 'op', ...body } });
      if (res.status !== 202) throw new Error(`submit: ${res.status} ${JSON.stringify(res.json)}`);
      return res.json.task_id as string;
    },
    async waitForEnd(taskId, key, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const res = await call('GET', `/v1/tasks/${taskId}`, { token: key });
        if (res.status === 200 && !['queued', 'running'].includes(res.json.status)) return res.json;
        if (res.status !== 200 && res.status !== 503) throw new Error(`GET task: ${res.status} ${JSON.stringify(res.json)}`);
        if (Date.now() > deadline) throw new Error(`task ${taskId} did not end within ${timeoutMs / 1000}s: ${JSON.stringify(res.json)}\n${outputs()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    exits() {
      const dead = [
        ...(api.child.exitCode !== null || api.child.signalCode !== null ? [`api (${api.child.exitCode ?? api.child.signalCode}):\n${api.output().slice(-3000)}`] : []),
        ...workers.filter((w) => w.child.exitCode !== null || w.child.signalCode !== null).map((w) => `worker ${w.pid} (${w.child.exitCode ?? w.child.signalCode}):\n${w.output().slice(-3000)}`),
      ];
      return dead;
    },
    async close() {
      await Promise.all([api.stop(), ...workers.map((w) => w.kill())]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The records of a finished task's CSV file (its header row excluded). */
export async function csvRecords(url: string): Promise<string[][]> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`download answered ${res.status}`);
  return (parse(await res.text(), { bom: true }) as string[][]).slice(1);
}

/** The task succeeded with one CSV file holding every one of `total` rows exactly once (first column: the id). */
export async function expectEveryRowOnce(task: { status: string; files: Array<{ rows: number; url: string }> }, total: number): Promise<void> {
  expect(task.status).toBe('succeeded');
  expect(task.files).toHaveLength(1);
  expect(task.files[0]!.rows).toBe(total);
  const records = await csvRecords(task.files[0]!.url);
  expect(records).toHaveLength(total);
  expect(new Set(records.map((r) => r[0])).size).toBe(total);
}
