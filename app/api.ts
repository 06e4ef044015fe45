// `npm run api`: the API alone, for scale-out (needs TEMPORAL_ADDRESS and DATABASE_URL).
import { ConfigError, loadConfig } from '../platform/config.js';
import { connectTemporal, onShutdown, openCore, startApi } from './runtime.js';

try {
  const config = loadConfig();
  if (!config.TEMPORAL_ADDRESS) throw new ConfigError('TEMPORAL_ADDRESS is required for npm run api');
  if (!config.DATABASE_URL) throw new ConfigError('DATABASE_URL is required for npm run api (PGlite is single-process)');
  const core = await openCore(config);
  const temporal = await connectTemporal(config, config.TEMPORAL_ADDRESS);
  const server = await startApi({ ...core, temporal });
  onShutdown([() => new Promise((r) => server.close(r)), () => temporal.connection.close(), () => core.database.close()]);
  console.log(`[download-center] api listening on ${config.PORT}`);
} catch (err) {
  console.error(`[download-center] cannot start: ${(err as Error).message}`);
  process.exit(1);
}
