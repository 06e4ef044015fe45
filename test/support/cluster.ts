// The service as a cluster runs it: the output of `npm run build` started with plain `node`, each
// API and worker its own process (test/e2e/scale-out.test.ts).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../platform/paths.js';

export const distDir = join(projectRoot, 'dist');

/** `npm run build` (scripts/build.mjs), skipped when dist/ was built from exactly these sources. */
export async function buildDist(): Promise<{ rebuilt: boolean; output: string }> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(projectRoot, 'scripts', 'build.mjs'), '--if-changed'], {
    cwd: projectRoot,
    maxBuffer: 16 * 1024 * 1024,
  });
  return { rebuilt: !stdout.includes('up to date'), output: stdout + stderr };
}

export interface NodeProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  exited: Promise<void>;
  output(): string;
  alive(): boolean;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** `node dist/<script>` (no loader, no tsx) with exactly `env`; resolves once `ready` is printed. */
export async function startCompiled(name: string, script: string, env: Record<string, string>, ready: string, timeoutMs = 60_000): Promise<NodeProcess> {
  const child = spawn(process.execPath, [join(distDir, script)], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => (out = (out + b.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const deadline = Date.now() + timeoutMs;
  while (!out.includes(ready)) {
    if (!alive()) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} was not ready within ${timeoutMs / 1000}s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    name,
    child,
    pid: child.pid!,
    exited,
    output: () => out,
    alive,
    async kill(signal = 'SIGKILL') {
      if (alive()) child.kill(signal);
      await exited;
    },
  };
}

/** The image's HEALTHCHECK command (dist/app/healthcheck.js) run with `env`: its exit code. */
export async function healthcheck(env: Record<string, string>): Promise<number> {
  try {
    await promisify(execFile)(process.execPath, [join(distDir, 'app', 'healthcheck.js')], { env, timeout: 15_000 });
    return 0;
  } catch (err) {
    return (err as { code?: number }).code ?? 1;
  }
}
