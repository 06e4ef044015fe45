// Wiring shared by the embedded start (app/start.ts) and the split processes (app/api.ts, app/worker.ts).
import { resealMaskKeys } from '../domain/projects/mask-key.js';
import type { Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { createAdaptorServer, type ServerType } from '@hono/node-server';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { createApp } from '../api/app.js';
import type { ApiDeps } from '../api/types.js';
import { type Database, openDatabase } from '../db/client.js';
import { cachedWorkflowBundle } from './bundle.js';
import { createWorker } from './worker-setup.js';
import { WorkerSupervisor } from './worker-supervisor.js';
import { Admission, watchQueue } from '../domain/tasks/admission/index.js';
import { type Config, loadConfig } from '../platform/config.js';
import { lifecycle } from '../platform/lifecycle.js';
import { configureLogging, log, type LogLevel, registerSecrets } from '../platform/logger.js';
import { smtpSecrets } from '../platform/mailer.js';
import { setTemporalMetricsUrl } from '../platform/metrics.js';
import { ensureSearchAttributes } from '../platform/search-attributes.js';
import { PinoTemporalLogger } from '../platform/temporal-log.js';
import { loadSecrets, type Secrets } from '../platform/secrets.js';
import { resealDestinations } from '../domain/destinations/store.js';
import { createStorage, type Storage } from '../platform/storage/index.js';

export interface Core {
  config: Config;
  database: Database;
  storage: Storage;
  secrets: Secrets;
}

/**
 * `prepared`: the database is the embedded start's, already migrated and its secrets re-sealed by the
 * API process that serves it (app/start.ts): the worker process it starts only connects.
 */
export async function openCore(config: Config, opts: { prepared?: boolean } = {}): Promise<Core> {
  let database: Database;
  try {
    database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
    if (!opts.prepared) await database.migrate();
  } catch (err) {
    throw new Error(`cannot reach the database (${config.DATABASE_URL ? 'DATABASE_URL' : `PGlite in ${join(config.DATA_DIR, 'pglite')}`}): ${(err as Error).message}`, { cause: err });
  }
  const storage = createStorage(config);
  try {
    await storage.ping();
  } catch (err) {
    throw new Error(`cannot reach the file store (${storage.kind}): ${(err as Error).message}`, { cause: err });
  }
  const secrets = loadSecrets(config);
  // Scrubbed from every log line should one ever slip into a message (platform/logger.ts).
  registerSecrets([secrets.adminToken, secrets.linkSecret, config.s3?.secretKey, ...secrets.destinationKeys, ...smtpSecrets(config.SMTP_URL)]);
  if (opts.prepared) return { config, database, storage, secrets };
  // After a DESTINATION_KEYS rotation: old secrets sealed again with the first key (docs/destinations.md).
  const resealed = await resealDestinations(database.db, secrets.destinationKeys);
  if (resealed.resealed || resealed.unreadable.length) lifecycleLog().info(resealed, 'destinations re-sealed');
  const masks = await resealMaskKeys(database.db, secrets.destinationKeys);
  if (masks.resealed || masks.unreadable.length) lifecycleLog().info(masks, 'mask keys re-sealed');
  return { config, database, storage, secrets };
}

/** Start and stop lines print whatever LOG_LEVEL says: an operator always sees them. */
export const lifecycleLog = () => log.child({ component: 'lifecycle' }, { level: 'info' });

/** Reads the configuration and sets up logging; a bad environment is one line on stderr and exit 1. */
export function startUp(): Config {
  try {
    const config = loadConfig();
    configureLogging(config.LOG_LEVEL);
    return config;
  } catch (err) {
    return cannotStart((err as Error).message);
  }
}

export function cannotStart(message: string): never {
  console.error(`[download-center] cannot start: ${message}`);
  process.exit(1);
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

const LISTEN_BACKLOG = 8192;

/** Each server's run starter, drained by stopApi: an accepted submission's run starts before the process ends. */
const starters = new WeakMap<ServerType, { drain(): Promise<void> }>();

export function startApi(deps: ApiDeps, extra?: (app: ReturnType<typeof createApp>['app']) => void): Promise<ServerType> {
  const { app, realtime, starter } = createApp(deps);
  extra?.(app);
  return new Promise((resolve, reject) => {
    const server = createAdaptorServer({ fetch: app.fetch });
    realtime.attach(server as Server);
    // A fleet of clients reconnecting at once must queue, not be reset: the kernel caps the backlog
    // at net.core.somaxconn (4096 here), well above Node's default of 511.
    starters.set(server, starter);
    server.listen({ port: deps.config.PORT, host: '0.0.0.0', backlog: LISTEN_BACKLOG }, () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'EADDRINUSE' ? `port ${deps.config.PORT} is already in use (PORT)` : `the API could not listen: ${err.message}`)),
    );
  });
}

let runtimeInstalled = false;
/**
 * The Temporal SDK's Runtime, installed once per process: its logs (the worker's, activities',
 * Core's) go to our pino logger at LOG_LEVEL, and its worker metrics to a Prometheus exporter on a
 * loopback port that this process's /metrics appends (platform/metrics.ts).
 */
export async function installTemporalRuntime(level: LogLevel): Promise<void> {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const port = await loopbackPort();
  // Core's own lines are chatty at INFO (every poll), so it speaks at WARN unless LOG_LEVEL=debug.
  const core = level === 'debug' ? 'DEBUG' : level === 'error' ? 'ERROR' : 'WARN';
  Runtime.install({
    logger: new PinoTemporalLogger(),
    // Our onShutdown orders the steps (stop admitting, then drain); the SDK must not start on its own.
    shutdownSignals: [],
    telemetryOptions: {
      logging: { filter: { core, other: core }, forward: {} },
      metrics: { prometheus: { bindAddress: `127.0.0.1:${port}`, useSecondsForDurations: true } },
    },
  });
  setTemporalMetricsUrl(`http://127.0.0.1:${port}/metrics`);
}

function loopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** The worker; `temporal` is the client its activities start the next waiting tasks with. */
export interface RunningWorker {
  /** Pauses polling while the database is unreachable (app/worker-supervisor.ts). */
  supervisor: WorkerSupervisor;
  running: Promise<void>;
  connection: NativeConnection;
  /** Stops watching the queue (domain/tasks/admission/watch.ts). */
  unwatch(): Promise<void>;
}

/** The worker's connection (the Temporal SDK's Runtime installed first, once per process). */
export async function connectWorker(config: Config, address: string): Promise<NativeConnection> {
  await installTemporalRuntime(config.LOG_LEVEL);
  return NativeConnection.connect({ address });
}

/**
 * `watch: false`: the queue is watched elsewhere (the embedded start's API process, whose in-process
 * PGlite hears the task notices; app/start.ts).
 */
export async function startWorker(core: Core, address: string, temporal: Client, opts: { watch?: boolean } = {}): Promise<RunningWorker> {
  const connection = await connectWorker(core.config, address);
  const options = {
    connection,
    namespace: core.config.TEMPORAL_NAMESPACE,
    taskQueue: core.config.TEMPORAL_TASK_QUEUE,
    deps: { db: core.database.db, storage: core.storage, config: core.config, linkSecret: core.secrets.linkSecret, destinationKeys: core.secrets.destinationKeys, temporal },
    workflowBundle: await cachedWorkflowBundle(join(core.config.DATA_DIR, 'cache')),
  };
  // A resume makes a fresh Worker from the same options: the connection and bundle are reused.
  const supervisor = await WorkerSupervisor.start({ create: (report) => createWorker({ ...options, onDatabaseUnavailable: report }), probe: () => core.database.ping(), log: lifecycleLog() });
  const unwatch = opts.watch === false ? async () => {} : await watchCoreQueue(core, temporal);
  return { supervisor, running: supervisor.running, connection, unwatch };
}

/** Starts the next waiting tasks as runs end (domain/tasks/admission/watch.ts). */
export function watchCoreQueue(core: Core, temporal: Client): Promise<() => Promise<void>> {
  return watchQueue(new Admission({ db: core.database.db, temporal, config: core.config }), core.database);
}

/**
 * SIGINT/SIGTERM: /readyz turns 503 at once, then the steps run in order (each step may run
 * things side by side); a second signal exits at once.
 */
export function onShutdown(steps: Array<() => Promise<unknown>>): void {
  const out = lifecycleLog();
  let stopping = false;
  const handler = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    lifecycle.beginShutdown();
    out.info({ signal }, `[download-center] ${signal}: shutting down (/readyz answers 503)`);
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        out.error({ err }, 'a shutdown step failed');
      }
    }
    out.info('[download-center] stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void handler('SIGINT'));
  process.on('SIGTERM', () => void handler('SIGTERM'));
}

/** Stops the API after SHUTDOWN_DELAY_MS (readiness already 503); WebSockets close with 1001. */
export async function stopApi(server: ServerType, config: Config): Promise<void> {
  await new Promise((r) => setTimeout(r, config.SHUTDOWN_DELAY_MS));
  await new Promise((r) => server.close(r));
  await drainStarts(server);
}

/** Waits for the runs of the submissions this server accepted to have started (or been handed back). */
export async function drainStarts(server: ServerType): Promise<void> {
  await starters.get(server)?.drain();
}

/** Stops polling; running activities get WORKER_SHUTDOWN_GRACE_MS, then are handed back. */
export async function drainWorker(w: RunningWorker): Promise<void> {
  const started = Date.now();
  await w.unwatch();
  await w.supervisor.stop();
  await w.running;
  lifecycleLog().info({ drain_ms: Date.now() - started }, '[download-center] worker drained');
}
