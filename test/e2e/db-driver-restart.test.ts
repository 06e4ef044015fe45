// The deciding test of docs/adr/0036-database-restarts.md: a process using the `postgres` driver
// through db/client.ts, with transactions and queries in flight, while its Postgres (the test's own)
// is restarted with `pg_ctl restart -m fast` again and again. Unpatched, the driver's deferred write
// hits the closed socket and the process exits (porsager/postgres#1154, #1208); with
// our patch of it (patches/) every lost query rejects, the process lives, queries resume. Fifteen
// restarts: a query lost between a socket's error and its close (a transaction's ROLLBACK) left a
// caller waiting about once in 25 restarts under load; db-driver-reset.test.ts reaches it every time.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../platform/paths.js';
import { type OwnPostgres, startOwnPostgres } from '../support/own-postgres.js';

interface Stats {
  ok: number;
  failed: number;
  lastOkAt: number;
  codes: Record<string, number>;
  callerOkAt: number[];
  done?: boolean;
}

const RESTARTS = 15;

let pg: OwnPostgres;
let child: ChildProcess | undefined;
let out = '';

const last = (): Stats | undefined => {
  const lines = out.split('\n').filter((l) => l.startsWith('{'));
  return lines.length ? (JSON.parse(lines.at(-1)!) as Stats) : undefined;
};
const alive = () => child!.exitCode === null && child!.signalCode === null;

async function until(what: string, cond: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (!alive()) throw new Error(`the process exited (${child!.exitCode ?? child!.signalCode}) while waiting for ${what}:\n${out.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000}s\n${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  pg = await startOwnPostgres();
}, 60_000);
afterAll(async () => {
  if (child && alive()) child.kill('SIGKILL');
  await pg?.close();
});

describe('the postgres driver while its server restarts', () => {
  it('never exits the process: lost queries reject, and all resume once the server is back', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'test/support/db-load.ts', pg.url], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-50_000)));
    child.stderr!.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-50_000)));
    await until('first queries', () => (last()?.ok ?? 0) > 50);

    const resumeMs: number[] = [];
    for (let round = 0; round < RESTARTS; round++) {
      const before = last()!;
      await pg.restart();
      const backAt = Date.now();
      // Queries fail while it is down, and every caller succeeds again once it is back (a lost
      // write that was dropped instead of settled leaves its caller waiting forever: #1209).
      await until(`every caller after restart ${round + 1}`, () => last()!.callerOkAt.every((t) => t > backAt) && last()!.ok > before.ok + 20);
      resumeMs.push(Date.now() - backAt);
      expect(alive()).toBe(true);
    }
    console.log(`every caller resumed ${resumeMs.join(', ')} ms after each restart`);
    const stats = last()!;
    // Every lost query was settled with an error the caller caught.
    expect(stats.failed).toBeGreaterThan(0);
    child.kill('SIGTERM');
    await until('a clean stop', () => last()?.done === true || !alive(), 20_000).catch(() => {});
    await new Promise((r) => (child!.exitCode !== null ? r(null) : child!.once('exit', r)));
    expect(child.exitCode).toBe(0);
    expect(out).not.toContain('TypeError');
  }, 150_000);
});
