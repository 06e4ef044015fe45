// Wiring shared by the embedded start (bin/start.ts) and the split processes (api/main.ts, worker/main.ts).
import type { Server } from 'node:http';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createApp } from '../api/app.js';
import type { ApiDeps } from '../api/types.js';
import { type Database, openDatabase } from '../db/client.js';
import { cachedWorkflowBundle } from './bundle.js';
import { createWorker } from './worker-setup.js';
import { watchQueue } from '../domain/tasks/admission-watch.js';
import type { Config } from '../platform/config.js';
import { ensureSearchAttributes } from '../platform/search-attributes.js';
import { loadSecrets, type Secrets } from '../platform/secrets.js';
import { createStorage, type Storage } from '../platform/storage/index.js';

export interface Core {
  config: Config;
  database: Database;
  storage: Storage;
  secrets: Secrets;
}

export async function openCore(config: Config): Promise<Core> {
  let database: Database;
  try {
    database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
    await database.migrate();
  } catch (err) {
    throw new Error(`cannot reach the database (${config.DATABASE_URL ? 'DATABASE_URL' : `PGlite in ${join(config.DATA_DIR, 'pglite')}`}): ${(err as Error).message}`, { cause: err });
  }
  const storage = createStorage(config);
  try {
    await storage.ping();
  } catch (err) {
    throw new Error(`cannot reach the file store (${storage.kind}): ${(err as Error).message}`, { cause: err });
  }
  return { config, database, storage, secrets: loadSecrets(config) };
}

export async function connectTemporal(config: Config, address: string): Promise<Client> {
  let connection: Connection;
  try {
    connection = await Connection.connect({ address, connectTimeout: 5000 });
  } catch (err) {
    throw new Error(`cannot reach Temporal at ${address} (TEMPORAL_ADDRESS): ${(err as Error).message}`, { cause: err });
  }
  try {
    await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE);
  } catch (err) {
    await connection.close();
    throw new Error(`Temporal at ${address}: ${(err as Error).message}`, { cause: err });
  }
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}

export function startApi(deps: ApiDeps, extra?: (app: ReturnType<typeof createApp>['app']) => void): Promise<ServerType> {
  const { app, realtime } = createApp(deps);
  extra?.(app);
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: deps.config.PORT, hostname: '0.0.0.0' }, () => resolve(server));
    realtime.attach(server as Server);
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'EADDRINUSE' ? `port ${deps.config.PORT} is already in use (PORT)` : `the API could not listen: ${err.message}`)),
    );
  });
}

let runtimeInstalled = false;
/** The Temporal SDK logs through its Runtime, installed once per process at LOG_LEVEL. */
export function installTemporalRuntime(level: Config['LOG_LEVEL']): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger(level.toUpperCase() as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR') });
}

/** The worker; `temporal` is the client its activities start the next waiting tasks with. */
export interface RunningWorker {
  worker: Worker;
  running: Promise<void>;
  connection: NativeConnection;
  /** Stops watching the queue (domain/tasks/admission-watch.ts). */
  unwatch(): Promise<void>;
}

export async function startWorker(core: Core, address: string, temporal: Client): Promise<RunningWorker> {
  installTemporalRuntime(core.config.LOG_LEVEL);
  const connection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    connection,
    namespace: core.config.TEMPORAL_NAMESPACE,
    taskQueue: core.config.TEMPORAL_TASK_QUEUE,
    deps: { db: core.database.db, storage: core.storage, config: core.config, linkSecret: core.secrets.linkSecret, temporal },
    workflowBundle: await cachedWorkflowBundle(join(core.config.DATA_DIR, 'cache')),
  });
  const unwatch = await watchQueue({ db: core.database.db, database: core.database, temporal, config: core.config });
  return { worker, running: worker.run(), connection, unwatch };
}

/** SIGINT/SIGTERM run the steps in order once; a second signal exits at once. */
export function onShutdown(steps: Array<() => Promise<unknown>>): void {
  let stopping = false;
  const handler = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log(`[download-center] ${signal}: shutting down`);
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        console.error('[download-center] shutdown step failed:', (err as Error).message);
      }
    }
    console.log('[download-center] stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void handler('SIGINT'));
  process.on('SIGTERM', () => void handler('SIGTERM'));
}
