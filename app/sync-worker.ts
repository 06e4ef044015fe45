// The API process's own Temporal Worker, on the sync queue only (docs/adr/0054-sync-runs-in-the-api-process.md):
// a sync export runs as local activities beside the API that waits on it, not in a worker process
// busy with other exports' pages. Started sync runs are handed to it eagerly: the client below shares
// its NativeConnection, so the server answers the start with the run's first workflow task.
import { Client } from '@temporalio/client';
import type { Config } from '../platform/config.js';
import { createWorker } from './worker-setup.js';
import { WorkerSupervisor } from './worker-supervisor.js';
import { cachedWorkflowBundle } from './bundle.js';
import { connectWorker } from './runtime-worker.js';
import { type Core, lifecycleLog } from './runtime.js';
import { join } from 'node:path';

export interface SyncWorker {
  /** Starts sync runs eagerly on this worker (ApiDeps.eagerTemporal). */
  eager: Client;
  /** Stops polling; a sync run in flight gets WORKER_SHUTDOWN_GRACE_MS, then is handed back. */
  stop(): Promise<void>;
}

export async function startSyncWorker(core: Core, address: string, temporal: Client, config: Config = core.config): Promise<SyncWorker> {
  const connection = await connectWorker(config, address);
  const options = {
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    queues: 'sync' as const,
    // No workflow thread of its own: a sync run's workflow code is a few calls between local
    // activities on this thread anyway, and the thread (its own V8 isolate with the SDK and the
    // workflow bundle loaded again) cost this process ~19 MB idle (docs/adr/0055-idle-memory-of-npm-start.md).
    workflowsOnMainThread: true,
    deps: { db: core.database.db, storage: core.storage, config, linkSecret: core.secrets.linkSecret, destinationKeys: core.secrets.destinationKeys, temporal },
    workflowBundle: await cachedWorkflowBundle(join(config.DATA_DIR, 'cache')),
  };
  // Paused while the database is away, like a worker process's (docs/adr/0036-database-restarts.md).
  const supervisor = await WorkerSupervisor.start({ create: (report) => createWorker({ ...options, onDatabaseUnavailable: report }), probe: () => core.database.ping(), log: lifecycleLog() });
  return {
    eager: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }),
    async stop() {
      await supervisor.stop();
      await supervisor.running;
      await connection.close();
    },
  };
}
