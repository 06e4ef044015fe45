// The worker as its own process (`node --import tsx app/worker.ts`, what `npm run worker` runs),
// pointed at the test's Temporal, database, task queue and store, so a test can SIGKILL it.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Config } from '../../platform/config.js';
import { projectRoot } from '../../platform/paths.js';

export interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  output(): string;
  exited: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** The variables a worker needs to join a test env (test/support/env.ts) as a separate process. */
export function workerEnv(config: Config, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATA_DIR: config.DATA_DIR,
    DATABASE_URL: config.DATABASE_URL!,
    TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS!,
    TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE,
    TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
    ADMIN_TOKEN: config.ADMIN_TOKEN!,
    LINK_SECRET: config.LINK_SECRET!,
    SOURCE_RETRY_INITIAL_MS: String(config.SOURCE_RETRY_INITIAL_MS),
    LOG_LEVEL: 'warn',
    // Several workers of a test share the host: each takes a free port for its /metrics.
    WORKER_METRICS_PORT: '0',
  };
  if (config.s3) {
    Object.assign(env, { S3_ENDPOINT: config.s3.endpoint, S3_ACCESS_KEY: config.s3.accessKey, S3_SECRET_KEY: config.s3.secretKey, S3_BUCKET: config.s3.bucket, S3_REGION: config.s3.region });
  }
  return { ...env, ...extra };
}

export async function startWorkerProcess(env: Record<string, string>, timeoutMs = 90_000): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/worker.ts'], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  child.stderr?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + timeoutMs;
  // app/worker.ts prints this once the worker polls (after bundling the workflows).
  while (!out.includes('[download-center] worker polling')) {
    if (child.exitCode !== null) throw new Error(`worker exited with code ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`worker not ready within ${timeoutMs / 1000}s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    pid: child.pid!,
    output: () => out,
    exited,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
