// `npm run api`: the API alone, for scale-out (needs TEMPORAL_ADDRESS and DATABASE_URL).
import { cannotStart, connectTemporal, lifecycleLog, onShutdown, openCore, startUp } from './runtime.js';
import { startApi, stopApi } from './runtime-api.js';
import { startSyncWorker } from './sync-worker.js';

const config = startUp();
try {
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required for npm run api');
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required for npm run api (PGlite is single-process)');
  const core = await openCore(config);
  const temporal = await connectTemporal(config, config.TEMPORAL_ADDRESS);
  // Sync exports run in the API process that waits on them (docs/adr/0054-sync-runs-in-the-api-process.md).
  const sync = await startSyncWorker(core, config.TEMPORAL_ADDRESS, temporal);
  const server = await startApi({ ...core, temporal, wakeSyncWorker: () => sync.wake() });
  // /readyz is 503 from the signal on; the server stops accepting SHUTDOWN_DELAY_MS later.
  onShutdown([() => stopApi(server, config), () => sync.stop(), () => temporal.connection.close(), () => core.database.close()]);
  lifecycleLog().info({ port: config.PORT }, `[download-center] api listening on ${config.PORT}`);
} catch (err) {
  cannotStart((err as Error).message);
}
