// `npm run worker`: the worker alone, for scale-out (needs TEMPORAL_ADDRESS and DATABASE_URL).
import type { AddressInfo } from 'node:net';
import { DEFAULT_WORKER_METRICS_PORT } from '../platform/config.js';
import { serveWorkerHealth } from './health.js';
import { serveWorkerMetrics } from './metrics-server.js';
import { cannotStart, connectTemporal, drainWorker, lifecycleLog, onShutdown, openCore, startUp, startWorker } from './runtime.js';
import { ensureAdmissionSweepSchedule, ensureCleanupSchedule } from './schedules.js';

const config = startUp();
try {
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required for npm run worker');
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required for npm run worker (PGlite is single-process)');
  const core = await openCore(config);
  const client = await connectTemporal(config, config.TEMPORAL_ADDRESS);
  const metricsServer = await serveWorkerMetrics(config, core.secrets.adminToken, config.WORKER_METRICS_PORT ?? DEFAULT_WORKER_METRICS_PORT);
  const metricsPort = (metricsServer.address() as AddressInfo).port;
  const w = await startWorker(core, config.TEMPORAL_ADDRESS, client);
  await ensureCleanupSchedule(client, config);
  await ensureAdmissionSweepSchedule(client, config);
  const health = config.HEALTH_PORT ? await serveWorkerHealth(w.supervisor, config.HEALTH_PORT) : null;
  onShutdown([
    // Running activities get WORKER_SHUTDOWN_GRACE_MS, then are handed back to the server.
    () => drainWorker(w),
    () => new Promise((r) => metricsServer.close(r)),
    () => w.connection.close(),
    () => client.connection.close(),
    () => core.database.close(),
    async () => health?.close(),
  ]);
  lifecycleLog().info(
    { task_queue: config.TEMPORAL_TASK_QUEUE, temporal: config.TEMPORAL_ADDRESS, metrics_port: metricsPort, health_port: config.HEALTH_PORT ?? null },
    `[download-center] worker polling ${config.TEMPORAL_TASK_QUEUE} on ${config.TEMPORAL_ADDRESS}${health ? ` (health: :${config.HEALTH_PORT}/healthz)` : ''}`,
  );
  await w.running;
} catch (err) {
  cannotStart((err as Error).message);
}
