// `npm start`: the whole service in one process on embedded defaults (README.md, ADR 0003).
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { demoSourceApp } from './demo-source.js';
import type { Config } from '../platform/config.js';
import { serveWorkerMetrics } from './metrics-server.js';
import { startMailCatcher } from '../platform/mail-catcher.js';
import { cannotStart, connectTemporal, lifecycleLog, onShutdown, openCore, startUp, watchCoreQueue } from './runtime.js';
import { startApi, stopApi } from './runtime-api.js';
import { startEmbeddedWorker } from './embedded-worker.js';
import { startSyncWorker } from './sync-worker.js';
import { shareSourceSlots } from '../domain/source/polite.js';
import { joinMetricsOf } from '../platform/metrics.js';
import { type DevServer, DevServerStartError, recordDevServer, type StaleDevServer, startDevServer, stopStaleDevServer } from '../platform/temporal-server.js';
import { ensureAdmissionSweepSchedule, ensureCleanupSchedule } from './schedules.js';

/**
 * Our dev server stops when this process ends, however (its watchdog, platform/temporal-server.ts).
 * One left by an earlier run (an older build, a watchdog killed on its own) would still hold the
 * ports and the SQLite file: stopped here when its command line shows it is ours, else named.
 */
async function startEmbeddedTemporal(config: Config): Promise<DevServer> {
  mkdirSync(config.DATA_DIR, { recursive: true });
  const pidFile = join(config.DATA_DIR, 'temporal.pid');
  const stale = await stopStaleDevServer(pidFile);
  if (stale?.outcome === 'stopped') lifecycleLog().warn({ pid: stale.pid, port: config.TEMPORAL_PORT, ui_port: config.TEMPORAL_UI_PORT }, '[download-center] stopped a Temporal dev server an earlier run left running');
  const server = await startDevServer({
    port: config.TEMPORAL_PORT,
    uiPort: config.TEMPORAL_UI_PORT,
    dbFile: resolve(config.DATA_DIR, 'temporal.db'),
    namespace: config.TEMPORAL_NAMESPACE,
  }).catch((e: Error) => {
    throw Object.assign(e, { stale });
  });
  recordDevServer(pidFile, server);
  return server;
}

/** The setting that moves what the dev server could not take, so a newcomer's first error says what to do. */
function devServerHint(e: Error & { stale?: StaleDevServer }, config: Pick<Config, 'TEMPORAL_PORT' | 'TEMPORAL_UI_PORT'>): string {
  const { stale } = e;
  if (!(e instanceof DevServerStartError)) return '';
  // The group an earlier run recorded is still there (its leader gone): most likely what holds the port.
  const left = stale?.outcome === 'left_running' ? `; the process group ${stale.pid} of an earlier run's dev server is still running (stop it: kill -TERM -- -${stale.pid})` : '';
  const fix = ` or set TEMPORAL_ADDRESS to use a Temporal server of your own${left}`;
  if (/UI port/i.test(e.reason)) return `. Port ${config.TEMPORAL_UI_PORT} is taken: set TEMPORAL_UI_PORT to a free port${fix}`;
  if (/address already in use|frontend port/i.test(e.reason)) return `. Port ${config.TEMPORAL_PORT} is taken: set TEMPORAL_PORT to a free port${fix}`;
  return `. Set TEMPORAL_ADDRESS to use a Temporal server of your own instead`;
}

async function main() {
  const config = startUp();
  const dev = config.TEMPORAL_ADDRESS ? null : await startEmbeddedTemporal(config).catch((e: Error) => cannotStart(`Temporal dev server: ${e.message}${devServerHint(e, config)}`));
  const address = config.TEMPORAL_ADDRESS ?? dev!.address;
  // Anything failing after the dev server started must not leave it running.
  const orStop = async (e: Error): Promise<never> => {
    await dev?.stop();
    cannotStart(e.message);
  };
  // No SMTP_URL: mail goes to a catcher on the loopback, read at /mails (docs/notifications.md#5-e-mail).
  const mailbox = config.SMTP_URL ? undefined : await startMailCatcher().catch(orStop);
  // PGlite on a thread of its own: its work for the worker process never holds the API's event loop
  // (docs/adr/0057-api-first-under-export-load.md).
  const core = await openCore(mailbox ? { ...config, SMTP_URL: mailbox.url } : config, { pgliteThread: true }).catch(orStop);
  const temporal = await connectTemporal(config, address).catch(orStop);
  // The worker runs in a process of its own, reaching this process's PGlite over the loopback
  // (docs/adr/0053-embedded-worker-process.md): a submission never waits behind an export's CPU.
  const wire = core.database.serveWire ? await core.database.serveWire().catch(orStop) : undefined;
  // Its requests to sources (previews, sync exports) take the same slots as the worker process's.
  if (wire) shareSourceSlots(wire.url);
  const worker = startEmbeddedWorker(
    { DATABASE_URL: wire?.url ?? config.DATABASE_URL!, TEMPORAL_ADDRESS: address, DATA_DIR: resolve(config.DATA_DIR), ...(mailbox ? { SMTP_URL: mailbox.url } : {}), MALLOC_MMAP_THRESHOLD_: '131072', ...(wire ? { DATABASE_POOL_MAX: '2' } : {}) },
    lifecycleLog(),
  );
  joinMetricsOf(() => worker.metrics());
  // Sync exports run in this process, beside the API that waits on them (docs/adr/0054-sync-runs-in-the-api-process.md).
  const sync = await startSyncWorker(core, address, temporal).catch(orStop);
  const server = await startApi({ ...core, temporal, mailbox, wakeSyncWorker: () => sync.wake() }, (app) => {
    if (config.DEMO_SOURCE) app.route('/demo', demoSourceApp());
  }).catch(orStop);
  // This process's PGlite hears the task notices, so the queue is watched here.
  const unwatch = await watchCoreQueue(core, temporal).catch(orStop);
  // The API's /metrics already holds the worker's series; a port of its own only when asked for.
  const metricsServer = config.WORKER_METRICS_PORT !== undefined ? await serveWorkerMetrics(config, core.secrets.adminToken, config.WORKER_METRICS_PORT).catch(orStop) : undefined;
  await ensureCleanupSchedule(temporal, config).catch(orStop);
  await ensureAdmissionSweepSchedule(temporal, config).catch(orStop);
  await worker.ready.catch(orStop);
  onShutdown([
    // Side by side: the API stays up (not ready) while the worker hands back its activities.
    () => Promise.all([stopApi(server, config).then(() => sync.stop()), worker.stop(config.WORKER_SHUTDOWN_GRACE_MS + 10_000)]),
    () => unwatch(),
    async () => metricsServer && new Promise((r) => metricsServer.close(r)),
    async () => mailbox?.close(),
    () => temporal.connection.close(),
    async () => wire?.close(),
    () => core.database.close(),
    async () => dev?.stop(),
  ]);
  lifecycleLog().info(
    {
      api: config.publicBaseUrl,
      health: `${config.publicBaseUrl}/healthz`,
      metrics: `${config.publicBaseUrl}/metrics`,
      temporal: address,
      ...(dev ? { temporal_ui: `http://localhost:${config.TEMPORAL_UI_PORT}` } : {}),
      database: core.database.kind,
      ...(config.DATABASE_URL ? {} : { pglite: resolve(config.DATA_DIR, 'pglite') }),
      files: core.storage.kind === 'local' ? `local in ${resolve(config.DATA_DIR, 'store')}` : core.storage.kind,
      // The token itself is never logged: it is in this file (or the environment).
      admin_token: core.secrets.adminTokenGenerated ? `generated, in ${resolve(config.DATA_DIR, 'secrets.json')}` : 'from the environment',
      mail: mailbox ? `caught locally (no SMTP_URL): read at ${config.publicBaseUrl}/mails` : 'sent through SMTP_URL',
      ...(config.DEMO_SOURCE ? { demo_source: `${config.publicBaseUrl}/demo/orders (try: npm run demo)` } : {}),
    },
    '[download-center] ready',
  );
  // A generated token must reach whoever started the service, but logs never hold it: so it is shown
  // to a person at a terminal only, on stderr beside the log, never when output goes to a pipe or a file.
  if (core.secrets.adminTokenGenerated && process.stderr.isTTY) process.stderr.write(`ADMIN_TOKEN    ${core.secrets.adminToken}  (generated, kept in ${resolve(config.DATA_DIR, 'secrets.json')})\n`);
}

await main();
