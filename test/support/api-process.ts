// `npm run api` as a child process on the test's database and task queue: a second API process
// (races between processes) or one the test kills.
import { type ChildProcess, spawn } from 'node:child_process';
import { projectRoot } from '../../platform/paths.js';
import type { TestEnv } from './env.js';
import { freePort } from './ports.js';

export interface ApiProcess {
  child: ChildProcess;
  base: string;
  exited: Promise<number | null>;
  output(): string;
  stop(): Promise<void>;
}

export async function startApiProcess(env: Pick<TestEnv, 'config' | 'databaseUrl'>, extraEnv: Record<string, string> = {}): Promise<ApiProcess> {
  const port = await freePort();
  const { config } = env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/api.ts'], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      DATA_DIR: config.DATA_DIR,
      DATABASE_URL: env.databaseUrl,
      TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
      ADMIN_TOKEN: config.ADMIN_TOKEN,
      LINK_SECRET: config.LINK_SECRET,
      SOURCE_RETRY_INITIAL_MS: String(config.SOURCE_RETRY_INITIAL_MS),
      LOG_LEVEL: 'warn',
      ...extraEnv,
    },
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!out.includes('api listening')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm run api did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    exited,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
