import { fileURLToPath } from 'node:url';
import { type ActivityInterceptorsFactory, NativeConnection, Worker, type WorkerOptions as TemporalWorkerOptions, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { isDatabaseUnavailableFailure } from '../activities/failure.js';
import { syncTaskQueue } from '../model/task-queues.js';
import type { SupervisedWorker } from './worker-supervisor.js';

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
  /**
   * Which queues: the deployment's (a worker process), its sync queue (an API process,
   * app/sync-worker.ts), or both (one process doing everything: the tests' environment).
   */
  queues?: 'export' | 'sync' | 'both';
  /**
   * Workflows run on this thread (in a vm context of their own) instead of a workflow thread of
   * their own (docs/adr/0055-idle-memory-of-npm-start.md).
   */
  workflowsOnMainThread?: boolean;
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

export async function createWorker(opts: WorkerOptions): Promise<SupervisedWorker> {
  const activities = createActivities(opts.deps);
  const queues = opts.queues ?? 'export';
  if (queues !== 'both') return Worker.create(workerOptions(opts, activities, queues));
  const workers = [await Worker.create(workerOptions(opts, activities, 'export')), await Worker.create(workerOptions(opts, activities, 'sync'))];
  const shutdown = () => workers.forEach((w) => w.getState() === 'RUNNING' && w.shutdown());
  return {
    // One ending stops the other: whoever runs them sees one worker that ended.
    run: async () => {
      const runs = workers.map((w) => w.run());
      await Promise.race(runs).finally(shutdown);
      await Promise.all(runs);
    },
    shutdown,
    getState: () => workers.find((w) => w.getState() !== 'RUNNING')?.getState() ?? 'RUNNING',
  };
}

function workerOptions(opts: WorkerOptions, activities: ReturnType<typeof createActivities>, queue: 'export' | 'sync'): TemporalWorkerOptions {
  const { config } = opts.deps;
  return {
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: queue === 'sync' ? syncTaskQueue(opts.taskQueue) : opts.taskQueue,
    activities,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath }),
    // Fetch lanes are I/O bound; rendering is CPU bound and memory-hungry, so keep the total modest.
    ...(queue === 'sync' ? syncQueueOptions(config.SYNC_SLOTS) : { maxConcurrentActivityTaskExecutions: config.WORKER_MAX_ACTIVITIES }),
    // On shutdown, in-flight activities get WORKER_SHUTDOWN_GRACE_MS to finish; then they are cancelled
    // and fail retryably, so the server hands them to another worker at once (from their heartbeat).
    shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE_MS,
    // Cancellation reaches an activity only in a heartbeat's answer; sending heartbeats at most a
    // second apart (instead of 0.8 x heartbeatTimeout) makes a cancel stop page fetches promptly,
    // and a fetch resumed after a crash redoes at most about a second of pages.
    maxHeartbeatThrottleInterval: '1 second',
    ...(opts.onDatabaseUnavailable ? { interceptors: { activity: [databaseWatch(opts.onDatabaseUnavailable)] } } : {}),
    ...(opts.workflowsOnMainThread ? onMainThread : {}),
  };
}

/**
 * Workflows in a vm context on the Worker's own thread, as the SDK's replayer runs them: the SDK calls
 * it `debugMode` (it exists so a debugger can reach workflow code), which also lifts the limit on a
 * workflow activation's run time; that limit is set back to the SDK's default here, so a workflow
 * stuck in a loop still fails its task as it would on a workflow thread.
 */
// isolateExecutionTimeout is read from the options as given (the SDK's own default, '5s', is only
// replaced in debugMode) though its type does not list it (@temporalio/worker 1.24, worker-options.js).
export const onMainThread = { debugMode: true, isolateExecutionTimeout: '5s' } as Partial<TemporalWorkerOptions>;

/**
 * A sync run is local activities inside its workflow task, at most SYNC_SLOTS runs at once per API
 * process (api/routes/sync.ts), plus runs its callers left that still end; one workflow thread.
 * The workflow task slots and the cache keep the SDK's defaults: fewer of either (10 tried) and the
 * server's answer to a start no longer carried the run's first task (no eager start).
 */
function syncQueueOptions(slots: number): Partial<TemporalWorkerOptions> {
  return { maxConcurrentActivityTaskExecutions: 1, maxConcurrentLocalActivityExecutions: 4 * slots, workflowThreadPoolSize: 1 };
}
