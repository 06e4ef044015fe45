// A complete service for one test file: a fresh Postgres database, the real API on a real port,
// and a worker on its own task queue of the shared Temporal dev server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerType } from '@hono/node-server';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import postgres from 'postgres';
import { inject } from 'vitest';
import { type Database, openDatabase } from '../../db/client.js';
import { type Config, loadConfig } from '../../platform/config.js';
import { randomToken } from '../../platform/crypto.js';
import { type Core, openCore } from '../../app/runtime.js';
import { drainStarts, startApi } from '../../app/runtime-api.js';
import { installTemporalRuntime } from '../../app/runtime-worker.js';
import { createWorker } from '../../app/worker-setup.js';
import type { SupervisedWorker } from '../../app/worker-supervisor.js';
import { Admission, watchQueue } from '../../domain/tasks/admission/index.js';
import { createProject } from '../../domain/projects/projects.js';
import type { ProjectRow } from '../../db/schema.js';
import { configureLogging } from '../../platform/logger.js';
import { databaseUrl, pgAdminUrl } from './pg.js';
import { freePort } from './ports.js';

export const ADMIN = 'test-admin-token-0123456789';

export interface TestEnv {
  base: string;
  config: Config;
  core: Core;
  temporal: Client;
  /** Absent with { worker: false }: the test runs its workers as child processes (worker-process.ts). */
  worker: SupervisedWorker | undefined;
  databaseUrl: string;
  api(method: string, path: string, opts?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; json: any; headers: Headers }>;
  createProject(overrides?: Record<string, unknown>): Promise<{ project_id: string; api_key: string; webhook_secret: string }>;
  waitForTask(taskId: string, apiKey: string, until?: (t: any) => boolean, timeoutMs?: number): Promise<any>;
  close(): Promise<void>;
}

export async function createDatabase(): Promise<string> {
  const name = `dc_test_${randomToken(6).toLowerCase().replace(/[^a-z0-9]/g, '')}`;
  const admin = postgres(pgAdminUrl(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  return databaseUrl(name);
}

export async function dropDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  const admin = postgres(pgAdminUrl(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end();
}

/** A project of the kept-count tests: a source that never answers, room for many submissions. */
export async function scratchProject(database: Database, name: string): Promise<ProjectRow> {
  const settings = { name, source_hosts: ['127.0.0.1:9'], callback_hosts: [], retention_hours: 1, max_running_tasks: 5, submit_per_minute: 10_000 };
  return (await createProject(database.db, settings as never)).project;
}

/** A migrated scratch database of either kind, for tests that run on both; close() removes it. */
export async function scratchDatabase(kind: 'postgres' | 'pglite'): Promise<{ database: Database; close(): Promise<void> }> {
  const url = kind === 'postgres' ? await createDatabase() : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'dc-scratch-'));
  const database = await openDatabase(url ? { url, dataDir: dir } : { dataDir: dir });
  await database.migrate();
  return {
    database,
    async close() {
      await database.close();
      if (url) await dropDatabase(url);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Environment for the S3 store: the run's SeaweedFS (global-setup.ts) and a bucket of our own. */
export function s3Env(): Record<string, string> {
  const s3 = inject('s3');
  return { S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY: s3.accessKey, S3_SECRET_KEY: s3.secretKey, S3_BUCKET: `dc-${randomToken(8).toLowerCase().replace(/[^a-z0-9]/g, '0')}` };
}

/** startTestEnv and the api key of one project of it: how most e2e files start. */
export async function startWithProject(env: Record<string, string> = {}, project: Record<string, unknown> = {}) {
  const started = await startTestEnv(env);
  return { env: started, key: (await started.createProject(project)).api_key };
}

/**
 * `eager`: the API starts sync exports over the worker's NativeConnection, so their runs start
 * eagerly on this worker, as an API process does (app/sync-worker.ts); by default it goes through the
 * task queue, as the API alone does.
 */
export async function startTestEnv(env: Record<string, string> = {}, opts: { worker?: boolean; eager?: boolean } = {}): Promise<TestEnv> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-test-'));
  const databaseUrl = await createDatabase();
  const port = await freePort();
  const address = inject('temporalAddress');
  const config = loadConfig({
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    ADMIN_TOKEN: ADMIN,
    LINK_SECRET: 'test-link-secret-0123456789',
    TEMPORAL_ADDRESS: address,
    TEMPORAL_TASK_QUEUE: `test-${randomToken(6)}`,
    SOURCE_RETRY_INITIAL_MS: '200',
    ...env,
  });
  // Test output stays quiet: warnings and errors only, as JSON lines (a test may lower the level).
  configureLogging('warn', { pretty: false });
  await installTemporalRuntime('warn');
  const core = await openCore(config);
  const temporal = new Client({ connection: await Connection.connect({ address }), namespace: config.TEMPORAL_NAMESPACE });
  const nativeConnection = await NativeConnection.connect({ address });
  const worker =
    opts.worker === false
      ? undefined
      : await createWorker({
          connection: nativeConnection,
          namespace: config.TEMPORAL_NAMESPACE,
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          // One process doing everything: the sync queue's runs too, as an API process would.
          queues: 'both',
          deps: { db: core.database.db, storage: core.storage, config, linkSecret: core.secrets.linkSecret, destinationKeys: core.secrets.destinationKeys, temporal },
          workflowBundle: { code: inject('workflowBundleCode') },
        });
  const running = worker?.run();
  // Like a worker process, the test's worker side starts what an API left queued (domain/tasks/admission/watch.ts).
  const unwatch = worker ? await watchQueue(new Admission({ db: core.database.db, temporal, config }), core.database) : undefined;
  const eagerTemporal = opts.eager && worker ? new Client({ connection: nativeConnection, namespace: config.TEMPORAL_NAMESPACE }) : undefined;
  const server: ServerType = await startApi({ ...core, temporal, eagerTemporal });
  const base = `http://127.0.0.1:${port}`;

  const api: TestEnv['api'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${base}${path}`, { method, headers, body });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: leave the text
    }
    return { status: res.status, json, headers: res.headers };
  };

  return {
    base,
    config,
    core,
    temporal,
    worker,
    databaseUrl,
    api,
    async createProject(overrides = {}) {
      const res = await api('POST', '/v1/projects', { token: ADMIN, body: { name: 'test', source_hosts: ['127.0.0.1'], ...overrides } });
      if (res.status !== 201) throw new Error(`createProject: ${res.status} ${JSON.stringify(res.json)}`);
      return res.json;
    },
    async waitForTask(taskId, apiKey, until = (t) => !['queued', 'running'].includes(t.status), timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const res = await api('GET', `/v1/tasks/${taskId}`, { token: apiKey });
        if (res.status !== 200) throw new Error(`GET task: ${res.status} ${JSON.stringify(res.json)}`);
        if (until(res.json)) return res.json;
        if (Date.now() > deadline) throw new Error(`task ${taskId} still ${res.json.status}/${res.json.stage} after ${timeoutMs}ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async close() {
      await unwatch?.();
      worker?.shutdown();
      await running;
      await new Promise((r) => server.close(r));
      await drainStarts(server);
      await temporal.connection.close();
      await nativeConnection.close();
      await core.database.close();
      await dropDatabase(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
