import { fileURLToPath } from 'node:url';
import { type ActivityInterceptorsFactory, NativeConnection, Worker, type WorkerOptions as TemporalWorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { isDatabaseUnavailableFailure } from '../activities/failure.js';
import { syncTaskQueue } from '../model/task-queues.js';

// .ts from the sources, .js from the compiled dist/.
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
export const workflowsPath = fileURLToPath(new URL(`../workflows/index${ext}`, import.meta.url));

export interface WorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A pre-built bundle (app/bundle.ts; tests build one per run); otherwise workflows/ is bundled here. */
  workflowBundle?: WorkflowBundleOption;
  /** Called when an activity failed because the database was unreachable (app/worker-supervisor.ts). */
  onDatabaseUnavailable?: () => void;
}

/** Tells the supervisor about activities that found the database unreachable; the failure goes on as it is. */
function databaseWatch(onUnavailable: () => void): ActivityInterceptorsFactory {
  return () => ({
    inbound: {
      async execute(input, next) {
        try {
          return await next(input);
        } catch (err) {
          if (isDatabaseUnavailableFailure(err)) onUnavailable();
          throw err;
        }
      },
    },
  });
}

/**
 * The service's worker: one Temporal Worker on the task queue, and one on its sync queue
 * (model/task-queues.ts) with the same activities and bundle and slots of its own, run and stopped
 * together.
 */
export interface ServiceWorker {
  run(): Promise<void>;
  shutdown(): void;
  getState(): string;
}

export async function createWorker(opts: WorkerOptions): Promise<ServiceWorker> {
  const activities = createActivities(opts.deps);
  const options = (taskQueue: string, sync: boolean): TemporalWorkerOptions => ({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue,
    activities,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath }),
    // Fetch lanes are I/O bound; rendering is CPU bound and memory-hungry, so keep the total modest.
    // A sync export runs as local activities inside its workflow task. Its queue keeps the default
    // workflow task slots: the pollers hold some of them, and an eager start needs one free.
    ...(sync
      ? { maxConcurrentLocalActivityExecutions: 4 * opts.deps.config.SYNC_SLOTS, maxConcurrentActivityTaskExecutions: opts.deps.config.SYNC_SLOTS }
      : { maxConcurrentActivityTaskExecutions: opts.deps.config.WORKER_MAX_ACTIVITIES }),
    // On shutdown, in-flight activities get WORKER_SHUTDOWN_GRACE_MS to finish; then they are cancelled
    // and fail retryably, so the server hands them to another worker at once (from their heartbeat).
    shutdownGraceTime: opts.deps.config.WORKER_SHUTDOWN_GRACE_MS,
    // Cancellation reaches an activity only in a heartbeat's answer; sending heartbeats at most a
    // second apart (instead of 0.8 x heartbeatTimeout) makes a cancel stop page fetches promptly,
    // and a fetch resumed after a crash redoes at most about a second of pages.
    maxHeartbeatThrottleInterval: '1 second',
    ...(opts.onDatabaseUnavailable ? { interceptors: { activity: [databaseWatch(opts.onDatabaseUnavailable)] } } : {}),
  });
  const main = await Worker.create(options(opts.taskQueue, false));
  const sync = await Worker.create(options(syncTaskQueue(opts.taskQueue), true));
  return {
    run: async () => {
      // One failing stops both: the supervisor then sees one worker that ended.
      const runs = [main.run(), sync.run()];
      await Promise.race(runs).finally(() => [main, sync].forEach((w) => w.getState() === 'RUNNING' && w.shutdown()));
      await Promise.all(runs);
    },
    shutdown: () => [main, sync].forEach((w) => w.getState() === 'RUNNING' && w.shutdown()),
    getState: () => (main.getState() === 'RUNNING' && sync.getState() !== 'RUNNING' ? sync.getState() : main.getState()),
  };
}
