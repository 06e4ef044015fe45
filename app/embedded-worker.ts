// The embedded start's worker process (docs/adr/0053-embedded-worker-process.md): app/worker.ts in a
// child process, reaching the API process's PGlite over the loopback (db/wire.ts), so an export's CPU
// (page transcoding, rendering) never holds the API's event loop. A worker process that ends on its
// own is started again after a pause that grows while it keeps failing; the API stays up meanwhile
// (exports wait in Temporal, nothing is lost).
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { MetricsParts } from '../platform/metrics.js';
import { EMBEDDED_WORKER_ENV, type FromWorker, type ToWorker } from './worker-link.js';

const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const script = fileURLToPath(new URL(`./worker${ext}`, import.meta.url));

const RESTART_MIN_MS = 1000;
const RESTART_MAX_MS = 30_000;
/** A worker process that ran this long before ending is restarted after the shortest pause again. */
const STEADY_MS = 60_000;
/** Above the worker's own 2 s for its Temporal SDK metrics, so a slow one still answers. */
const METRICS_TIMEOUT_MS = 3000;

export interface EmbeddedWorker {
  /** Resolves when the first worker process polls; rejects when it ends before (its own error on stderr). */
  ready: Promise<void>;
  metrics(): Promise<MetricsParts | undefined>;
  /** SIGTERM: the worker drains (WORKER_SHUTDOWN_GRACE_MS), then ends; killed if it has not `graceMs` later. */
  stop(graceMs: number): Promise<void>;
}

export function startEmbeddedWorker(env: Record<string, string>, log: Logger): EmbeddedWorker {
  let child: ChildProcess;
  let stopping = false;
  let pause = RESTART_MIN_MS;
  let ready!: { resolve(): void; reject(e: Error): void; settled: boolean };
  const readyPromise = new Promise<void>((resolve, reject) => (ready = { resolve, reject, settled: false }));
  const waiting = new Map<number, (parts: MetricsParts) => void>();
  let nextId = 1;

  const launch = () => {
    const startedAt = Date.now();
    child = spawn(process.execPath, [...process.execArgv, script], {
      env: { ...process.env, ...env, [EMBEDDED_WORKER_ENV]: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (m: FromWorker) => {
      if (m.kind === 'ready' && !ready.settled) {
        ready.settled = true;
        ready.resolve();
      } else if (m.kind === 'metrics') waiting.get(m.id)?.(m);
    });
    child.once('exit', (code, signal) => {
      if (stopping) return;
      if (!ready.settled) {
        ready.settled = true;
        return ready.reject(new Error(`the worker process ended while starting (${signal ?? `exit code ${code}`})`));
      }
      pause = Date.now() - startedAt > STEADY_MS ? RESTART_MIN_MS : Math.min(pause * 2, RESTART_MAX_MS);
      log.error({ code, signal, restart_in_ms: pause }, '[download-center] the worker process ended: starting it again');
      setTimeout(() => !stopping && launch(), pause).unref();
    });
  };
  launch();

  return {
    ready: readyPromise,
    metrics: async () => {
      if (!child.connected) return undefined;
      const id = nextId++;
      try {
        return await new Promise<MetricsParts | undefined>((resolve) => {
          waiting.set(id, resolve);
          setTimeout(() => resolve(undefined), METRICS_TIMEOUT_MS).unref();
          child.send({ kind: 'metrics', id } satisfies ToWorker);
        });
      } finally {
        waiting.delete(id);
      }
    },
    stop: async (graceMs) => {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const late = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(late);
    },
  };
}
