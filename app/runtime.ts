// Wiring shared by the embedded start (app/start.ts) and the split processes (app/api.ts, app/worker.ts):
// the core, logging, Temporal's client and the shutdown steps. The API's wiring is app/runtime-api.ts,
// the worker's app/runtime-worker.ts, so neither process loads the other's modules (memory).
import { resealMaskKeys } from '../domain/projects/mask-key.js';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { type Database, openDatabase } from '../db/client.js';
import { Admission, watchQueue } from '../domain/tasks/admission/index.js';
import { type Config, loadConfig } from '../platform/config.js';
import { lifecycle } from '../platform/lifecycle.js';
import { configureLogging, log, registerSecrets } from '../platform/logger.js';
import { smtpSecrets } from '../platform/mailer.js';
import { ensureSearchAttributes } from '../platform/search-attributes.js';
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
 * `pgliteThread`: without DATABASE_URL, PGlite runs on a thread of its own (db/pglite-thread.ts).
 */
export async function openCore(config: Config, opts: { prepared?: boolean; pgliteThread?: boolean } = {}): Promise<Core> {
  let database: Database;
  try {
    database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR, poolMax: config.DATABASE_POOL_MAX, thread: opts.pgliteThread });
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

/** Starts the next waiting tasks as runs end (domain/tasks/admission/watch.ts). */
export function watchCoreQueue(core: Core, temporal: Client): Promise<() => Promise<void>> {
  return watchQueue(new Admission({ db: core.database.db, temporal, config: core.config }), core.database);
}
