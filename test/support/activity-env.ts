// Activities run outside a worker: MockActivityEnvironment over real components (a fresh migrated
// PGlite database in memory, so no database server is needed; local storage in a temp dir; a real
// source server), with a project and tasks inserted directly. For unit tests of one activity's own
// behaviour: heartbeats, resume, error mapping.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Info } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createFetchActivities } from '../../activities/fetch.js';
import { type Database, openDatabase } from '../../db/client.js';
import { projects, tasks } from '../../db/schema.js';
import { listPieces, type Piece, pieceChain } from '../../domain/staging/pieces.js';
import { type Config, loadConfig } from '../../platform/config.js';
import { newId, randomToken } from '../../platform/crypto.js';
import { LocalStorage } from '../../platform/storage/local.js';
import { migratedTemplate } from './pglite-template.js';

export interface Run<T> {
  env: MockActivityEnvironment;
  /** Every heartbeat's details, in order. */
  heartbeats: unknown[];
  result: Promise<T>;
}

// The tests assert on failures; the SDK's "Activity failed" warnings would only be noise.
const logger = new DefaultLogger('ERROR');

/** Runs fn in a mock activity context of its own (a cancelled context cannot be reused). */
export function runActivity<T>(info: Partial<Info>, fn: () => Promise<T>): Run<T> {
  const env = new MockActivityEnvironment(info, { logger });
  const heartbeats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => heartbeats.push(d));
  return { env, heartbeats, result: env.run(fn) };
}

export interface FetchHarness {
  config: Config;
  database: Database;
  storage: LocalStorage;
  activities: ReturnType<typeof createFetchActivities>;
  projectId: string;
  /** A running task reading sourceUrl; probed (meta stored) unless probe is false. */
  newTask(sourceUrl: string, opts?: { pageSize?: number; probe?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startFetchHarness(env: Record<string, string> = {}): Promise<FetchHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-activity-'));
  const config = loadConfig({ DATA_DIR: dataDir, SOURCE_TIMEOUT_MS: '10000', SOURCE_RETRY_INITIAL_MS: '50', SOURCE_RETRY_MAX_ATTEMPTS: '3', ...env });
  const database = await openDatabase({ dataDir, memory: { loadDataDir: await migratedTemplate() } });
  const storage = new LocalStorage(join(dataDir, 'store'));
  const projectId = newId('prj');
  await database.db.insert(projects).values({
    id: projectId,
    name: 'fetch unit',
    apiKeyHash: randomToken(16),
    webhookSecret: randomToken(16),
    sourceHosts: ['127.0.0.1'],
    callbackHosts: [],
    retentionHours: 24,
    maxRunningTasks: 10,
    submitPerMinute: 100,
    settings: {},
  });
  const activities = createFetchActivities({ db: database.db, storage, config, destinationKeys: ['activity-env-sealing-key-0123456789'] });
  return {
    config,
    database,
    storage,
    activities,
    projectId,
    async newTask(sourceUrl, { pageSize = 10, probe = true } = {}) {
      const id = newId('tsk');
      await database.db.insert(tasks).values({
        id,
        projectId,
        operatorId: 'op',
        type: 'csv',
        fileName: 'export',
        sourceUrl,
        pageSize,
        priority: 0,
        options: {},
        status: 'running',
        stage: 'probing',
        requestHash: randomToken(16),
      });
      if (probe) await runActivity({}, () => activities.probeSource({ taskId: id })).result;
      return id;
    },
    async close() {
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The stored pieces of a task that cover pages [from, to) exactly once, in order, or null. */
export async function chainOf(storage: LocalStorage, taskId: string, from: number, to: number): Promise<Piece[] | null> {
  const shifted = (await listPieces(storage, taskId)).filter((p) => p.from >= from).map((p) => ({ ...p, from: p.from - from, to: p.to - from }));
  return pieceChain(shifted, to - from)?.map((p) => ({ ...p, from: p.from + from, to: p.to + from })) ?? null;
}
