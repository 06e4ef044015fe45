// `npm run worker`: the worker alone, for scale-out (needs TEMPORAL_ADDRESS and DATABASE_URL).
import { ConfigError, loadConfig } from '../platform/config.js';
import { serveWorkerHealth } from './health.js';
import { connectTemporal, onShutdown, openCore, startWorker } from './runtime.js';
import { ensureAdmissionSweepSchedule, ensureCleanupSchedule } from './schedules.js';

try {
  const config = loadConfig();
  if (!config.TEMPORAL_ADDRESS) throw new ConfigError('TEMPORAL_ADDRESS is required for npm run worker');
  if (!config.DATABASE_URL) throw new ConfigError('DATABASE_URL is required for npm run worker (PGlite is single-process)');
  const core = await openCore(config);
  const client = await connectTemporal(config, config.TEMPORAL_ADDRESS);
  const { worker, running, connection, unwatch } = await startWorker(core, config.TEMPORAL_ADDRESS, client);
  await ensureCleanupSchedule(client, config);
  await ensureAdmissionSweepSchedule(client, config);
  const health = config.HEALTH_PORT ? await serveWorkerHealth(worker, config.HEALTH_PORT) : null;
  onShutdown([
    unwatch,
    async () => {
      worker.shutdown();
      await running;
    },
    () => connection.close(),
    () => client.connection.close(),
    () => core.database.close(),
    async () => health?.close(),
  ]);
  console.log(`[download-center] worker polling ${config.TEMPORAL_TASK_QUEUE} on ${config.TEMPORAL_ADDRESS}${health ? ` (health: :${config.HEALTH_PORT}/healthz)` : ''}`);
  await running;
} catch (err) {
  console.error(`[download-center] cannot start: ${(err as Error).message}`);
  process.exit(1);
}
