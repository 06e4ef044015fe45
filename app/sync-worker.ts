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
import type { NativeConnection } from '@temporalio/worker';
import { syncTaskQueue } from '../model/task-queues.js';

export interface SyncWorker {
  /**
   * The Worker polling, started by the first call (the first sync export), and a client over its
   * NativeConnection: a run started through it starts eagerly on it. Until then the process holds
   * neither (~19 MB idle: the native runtime and connection, the workflow bundle in a vm context,
   * its source map; docs/adr/0055-idle-memory-of-npm-start.md). A start that failed is tried again
   * by the next call.
   */
  wake(): Promise<Client>;
  /** Stops polling; a sync run in flight gets WORKER_SHUTDOWN_GRACE_MS, then is handed back. */
  stop(): Promise<void>;
}

interface Started {
  connection: NativeConnection;
  supervisor: WorkerSupervisor;
  eager: Client;
}

export async function startSyncWorker(core: Core, address: string, temporal: Client, config: Config = core.config): Promise<SyncWorker> {
  const workflowBundle = await cachedWorkflowBundle(join(config.DATA_DIR, 'cache'));
  const start = async (): Promise<Started> => {
    const connection = await connectWorker(config, address);
    const options = {
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      queues: 'sync' as const,
      // No workflow thread of its own: a sync run's workflow code is a few calls between local
      // activities on this thread anyway, and the thread (its own V8 isolate with the SDK and the
      // workflow bundle loaded again) cost this process ~19 MB (docs/adr/0055-idle-memory-of-npm-start.md).
      workflowsOnMainThread: true,
      deps: { db: core.database.db, storage: core.storage, config, linkSecret: core.secrets.linkSecret, destinationKeys: core.secrets.destinationKeys, temporal },
      workflowBundle,
    };
    try {
      // Paused while the database is away, like a worker process's (docs/adr/0036-database-restarts.md).
      const supervisor = await WorkerSupervisor.start({ create: (report) => createWorker({ ...options, onDatabaseUnavailable: report }), probe: () => core.database.ping(), log: lifecycleLog() });
      return { connection, supervisor, eager: new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }) };
    } catch (err) {
      await connection.close();
      throw err;
    }
  };
  let started: Promise<Started> | undefined;
  let stopping = false;
  const wake = async () => {
    if (stopping) throw new Error('the sync worker is stopping');
    started ??= start().catch((err: unknown) => {
      started = undefined;
      throw err;
    });
    return (await started).eager;
  };
  // A sync run whose API process ended mid-run waits on the sync queue for any sync Worker: until
  // its own Worker polls, this process looks for such a run at start and every BACKLOG_CHECK_MS.
  const queue = syncTaskQueue(config.TEMPORAL_TASK_QUEUE);
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    if ((await syncBacklog(temporal, config.TEMPORAL_NAMESPACE, queue).catch(() => 0)) > 0) await wake().catch(() => {});
    // Until a start has succeeded: one under way may still fail, and leave its run on the queue.
    const polling = started !== undefined && (await started.then(() => true, () => false));
    if (!polling && !stopping) timer = setTimeout(() => void check(), BACKLOG_CHECK_MS).unref();
  };
  void check();
  return {
    wake,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      const running = await started?.catch(() => undefined);
      if (!running) return;
      await running.supervisor.stop();
      await running.supervisor.running;
      await running.connection.close();
    },
  };
}

/** How often an API process whose sync Worker is not polling looks for sync runs waiting on its queue. */
export const BACKLOG_CHECK_MS = 15_000;

/** temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW (@temporalio/proto is the SDK's, not ours). */
const TASK_QUEUE_TYPE_WORKFLOW = 1;

/** Workflow tasks waiting on the queue (the server's approximate count). */
async function syncBacklog(temporal: Client, namespace: string, name: string): Promise<number> {
  const answer = await temporal.workflowService.describeTaskQueue({ namespace, taskQueue: { name }, taskQueueType: TASK_QUEUE_TYPE_WORKFLOW, reportStats: true });
  return Number(answer.stats?.approximateBacklogCount ?? 0);
}
