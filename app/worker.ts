// `npm run worker`: the worker alone, for scale-out (needs TEMPORAL_ADDRESS and DATABASE_URL). The
// embedded start runs this same file as its worker process (app/embedded-worker.ts): then the API
// process serves the database, watches the queue, keeps the schedules and shows the metrics.
import type { AddressInfo } from 'node:net';
import { DEFAULT_WORKER_METRICS_PORT } from '../platform/config.js';
import { metricsParts } from '../platform/metrics.js';
import { lowerCpuPriority } from '../platform/priority.js';
import { serveWorkerHealth } from './health.js';
import { serveWorkerMetrics } from './metrics-server.js';
import { cannotStart, connectTemporal, lifecycleLog, onShutdown, openCore, startUp } from './runtime.js';
import { drainWorker, startWorker } from './runtime-worker.js';
import { ensureAdmissionSweepSchedule, ensureCleanupSchedule } from './schedules.js';
import { EMBEDDED_WORKER_ENV, type FromWorker, type ToWorker } from './worker-link.js';

const config = startUp();
// Exports are batch work: the API's callers come first on shared cores (docs/adr/0057-api-first-under-export-load.md).
lowerCpuPriority(config.WORKER_NICE);
const embedded = process.env[EMBEDDED_WORKER_ENV] === '1' && typeof process.send === 'function';

/** To the API process, while it is there (gone, 'disconnect' ends this process; a send would throw). */
const send = (m: FromWorker) => {
  if (process.connected) process.send!(m);
};

/** The embedded start's worker answers its API process's metrics requests, and ends with it. */
function linkToApiProcess(): void {
  process.on('message', (m: ToWorker) => {
    if (m.kind === 'metrics') void metricsParts().then((parts) => send({ kind: 'metrics', id: m.id, ...parts }));
  });
  // The API process is gone (killed): its database with it, so nothing here can go on.
  process.on('disconnect', () => {
    lifecycleLog().warn('[download-center] the API process is gone: worker process exits');
    process.exit(1);
  });
}

try {
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required for npm run worker');
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required for npm run worker (PGlite is single-process)');
  // Linked first: an API process gone while this one starts must end it too.
  if (embedded) linkToApiProcess();
  const core = await openCore(config, { prepared: embedded });
  const client = await connectTemporal(config, config.TEMPORAL_ADDRESS);
  const metricsServer = embedded ? null : await serveWorkerMetrics(config, core.secrets.adminToken, config.WORKER_METRICS_PORT ?? DEFAULT_WORKER_METRICS_PORT);
  // The embedded start's workflows run on this process's thread, not a workflow thread of their
  // own: ~15 MB less idle, the `npm start` group's memory goal (docs/adr/0055-idle-memory-of-npm-start.md).
  // A worker of the split deployment keeps the thread, which gives its workflow code a core of its own under load.
  const w = await startWorker(core, config.TEMPORAL_ADDRESS, client, { watch: !embedded, workflowsOnMainThread: embedded });
  if (!embedded) {
    await ensureCleanupSchedule(client, config);
    await ensureAdmissionSweepSchedule(client, config);
  }
  const health = config.HEALTH_PORT && !embedded ? await serveWorkerHealth(w.supervisor, config.HEALTH_PORT) : null;
  onShutdown([
    // Running activities get WORKER_SHUTDOWN_GRACE_MS, then are handed back to the server.
    () => drainWorker(w),
    async () => metricsServer && new Promise((r) => metricsServer.close(r)),
    () => w.connection.close(),
    () => client.connection.close(),
    () => core.database.close(),
    async () => health?.close(),
  ]);
  if (embedded) send({ kind: 'ready' });
  else {
    const metricsPort = (metricsServer!.address() as AddressInfo).port;
    lifecycleLog().info(
      { task_queue: config.TEMPORAL_TASK_QUEUE, temporal: config.TEMPORAL_ADDRESS, metrics_port: metricsPort, health_port: config.HEALTH_PORT ?? null },
      `[download-center] worker polling ${config.TEMPORAL_TASK_QUEUE} on ${config.TEMPORAL_ADDRESS}${health ? ` (health: :${config.HEALTH_PORT}/healthz)` : ''}`,
    );
  }
  await w.running;
} catch (err) {
  cannotStart((err as Error).message);
}
