// The worker's wiring (app/worker.ts): the Temporal SDK's Runtime, the worker under its supervisor,
// and how it drains.
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { cachedWorkflowBundle } from './bundle.js';
import { createWorker } from './worker-setup.js';
import { WorkerSupervisor } from './worker-supervisor.js';
import { type Core, lifecycleLog, watchCoreQueue } from './runtime.js';
import type { Config } from '../platform/config.js';
import type { LogLevel } from '../platform/logger.js';
import { setTemporalMetricsUrl } from '../platform/metrics.js';
import { PinoTemporalLogger } from '../platform/temporal-log.js';

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
 * PGlite hears the task notices; app/start.ts). `workflowsOnMainThread`: no workflow thread
 * (app/worker-setup.ts; the embedded start's worker process, docs/adr/0055-idle-memory-of-npm-start.md).
 */
export async function startWorker(core: Core, address: string, temporal: Client, opts: { watch?: boolean; workflowsOnMainThread?: boolean } = {}): Promise<RunningWorker> {
  const connection = await connectWorker(core.config, address);
  const options = {
    connection,
    namespace: core.config.TEMPORAL_NAMESPACE,
    taskQueue: core.config.TEMPORAL_TASK_QUEUE,
    deps: { db: core.database.db, storage: core.storage, config: core.config, linkSecret: core.secrets.linkSecret, destinationKeys: core.secrets.destinationKeys, temporal },
    workflowBundle: await cachedWorkflowBundle(join(core.config.DATA_DIR, 'cache')),
    workflowsOnMainThread: opts.workflowsOnMainThread ?? false,
  };
  // A resume makes a fresh Worker from the same options: the connection and bundle are reused.
  const supervisor = await WorkerSupervisor.start({ create: (report) => createWorker({ ...options, onDatabaseUnavailable: report }), probe: () => core.database.ping(), log: lifecycleLog() });
  const unwatch = opts.watch === false ? async () => {} : await watchCoreQueue(core, temporal);
  return { supervisor, running: supervisor.running, connection, unwatch };
}

/** Stops polling; running activities get WORKER_SHUTDOWN_GRACE_MS, then are handed back. */
export async function drainWorker(w: RunningWorker): Promise<void> {
  const started = Date.now();
  await w.unwatch();
  await w.supervisor.stop();
  await w.running;
  lifecycleLog().info({ drain_ms: Date.now() - started }, '[download-center] worker drained');
}
