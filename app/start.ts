// `npm start`: the whole service in one process on embedded defaults (CONTRACT §1).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { demoSourceApp } from './demo-source.js';
import { type Config, ConfigError, loadConfig } from '../platform/config.js';
import { connectTemporal, onShutdown, openCore, startApi, startWorker } from './runtime.js';
import { type DevServer, startDevServer } from '../platform/temporal-server.js';
import { ensureAdmissionSweepSchedule, ensureCleanupSchedule } from './schedules.js';

function fail(message: string): never {
  console.error(`[download-center] cannot start: ${message}`);
  process.exit(1);
}

/** A dev server left behind by a killed run still holds the port and the SQLite file. */
function stopStaleDevServer(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  try {
    if (pid > 0) process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function startEmbeddedTemporal(config: Config): Promise<DevServer> {
  mkdirSync(config.DATA_DIR, { recursive: true });
  const pidFile = join(config.DATA_DIR, 'temporal.pid');
  stopStaleDevServer(pidFile);
  const server = await startDevServer({
    port: config.TEMPORAL_PORT,
    uiPort: config.TEMPORAL_UI_PORT,
    dbFile: resolve(config.DATA_DIR, 'temporal.db'),
    namespace: config.TEMPORAL_NAMESPACE,
  });
  writeFileSync(pidFile, String(server.child.pid));
  return server;
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
  const dev = config.TEMPORAL_ADDRESS ? null : await startEmbeddedTemporal(config).catch((e: Error) => fail(`Temporal dev server: ${e.message}`));
  const address = config.TEMPORAL_ADDRESS ?? dev!.address;
  // Anything failing after the dev server started must not leave it running.
  const orStop = async (e: Error): Promise<never> => {
    await dev?.stop();
    fail(e.message);
  };
  const core = await openCore(config).catch(orStop);
  const temporal = await connectTemporal(config, address).catch(orStop);
  const server = await startApi({ ...core, temporal }, (app) => {
    if (config.DEMO_SOURCE) app.route('/demo', demoSourceApp());
  }).catch(orStop);
  const { worker, running, connection, unwatch } = await startWorker(core, address, temporal).catch(orStop);
  await ensureCleanupSchedule(temporal, config).catch(orStop);
  await ensureAdmissionSweepSchedule(temporal, config).catch(orStop);
  onShutdown([
    unwatch,
    async () => {
      worker.shutdown();
      await running;
    },
    () => new Promise((r) => server.close(r)),
    () => temporal.connection.close(),
    () => connection.close(),
    () => core.database.close(),
    async () => dev?.stop(),
  ]);
  const lines = [
    `API            ${config.publicBaseUrl}  (health: ${config.publicBaseUrl}/healthz)`,
    `Temporal       ${address}${dev ? `  (web UI: http://localhost:${config.TEMPORAL_UI_PORT})` : ''}`,
    `database       ${core.database.kind}${config.DATABASE_URL ? '' : ` in ${resolve(config.DATA_DIR, 'pglite')}`}`,
    `files          ${core.storage.kind}${core.storage.kind === 'local' ? ` in ${resolve(config.DATA_DIR, 'store')}` : ''}`,
    core.secrets.adminTokenGenerated ? `ADMIN_TOKEN    ${core.secrets.adminToken}  (generated, kept in ${resolve(config.DATA_DIR, 'secrets.json')})` : 'ADMIN_TOKEN    from the environment',
    config.DEMO_SOURCE ? `demo source    ${config.publicBaseUrl}/demo/orders   — try: npm run demo` : '',
  ];
  console.log(`[download-center] ready\n${lines.filter(Boolean).map((l) => `  ${l}`).join('\n')}`);
  await running.catch((err: Error) => fail(`worker stopped: ${err.message}`));
}

await main();
