import { fileURLToPath } from 'node:url';
import { type ActivityInterceptorsFactory, NativeConnection, Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.js';
import { isDatabaseUnavailableFailure } from '../activities/failure.js';

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

export async function createWorker(opts: WorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: opts.connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    activities: createActivities(opts.deps),
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath }),
    // Fetch lanes are I/O bound; rendering is CPU bound and memory-hungry, so keep the total modest.
    maxConcurrentActivityTaskExecutions: opts.deps.config.WORKER_MAX_ACTIVITIES,
    // On shutdown, in-flight activities get WORKER_SHUTDOWN_GRACE_MS to finish; then they are cancelled
    // and fail retryably, so the server hands them to another worker at once (from their heartbeat).
    shutdownGraceTime: opts.deps.config.WORKER_SHUTDOWN_GRACE_MS,
    // Cancellation reaches an activity only in a heartbeat's answer; sending heartbeats at most a
    // second apart (instead of 0.8 x heartbeatTimeout) makes a cancel stop page fetches promptly,
    // and a fetch resumed after a crash redoes at most about a second of pages.
    maxHeartbeatThrottleInterval: '1 second',
    ...(opts.onDatabaseUnavailable ? { interceptors: { activity: [databaseWatch(opts.onDatabaseUnavailable)] } } : {}),
  });
}
