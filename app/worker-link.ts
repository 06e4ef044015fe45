// The messages between the embedded start's API process (app/start.ts, app/embedded-worker.ts)
// and the worker process it runs (app/worker.ts), over the child process's IPC channel.
import type { MetricsParts } from '../platform/metrics.js';

/** Set in the worker process's environment by the embedded start. */
export const EMBEDDED_WORKER_ENV = 'DC_EMBEDDED_WORKER';

export type ToWorker = { kind: 'metrics'; id: number };
export type FromWorker = { kind: 'ready' } | ({ kind: 'metrics'; id: number } & MetricsParts);
