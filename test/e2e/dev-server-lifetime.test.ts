// `npm start`'s Temporal dev server lives no longer than the service (docs/operations.md#the-embedded-temporal-dev-server):
// killed with SIGKILL (no handler runs), the service takes the dev server with it, ports and all, and
// the next start on the same DATA_DIR and ports comes up. One that an earlier build left running is
// found through DATA_DIR/temporal.pid and stopped when its command line is our dev server's, and a
// recorded pid now used by another program is left alone.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { resolveTemporalBin, startDevServer, stopStaleDevServer } from '../../platform/temporal-server.js';
import { type Embedded, pidAlive, startEmbedded } from '../support/embedded.js';
import { freePort } from '../support/ports.js';

let svc: Embedded | undefined;
afterAll(async () => {
  svc?.signal('SIGKILL');
  await svc?.exited;
});

/** Whether something accepts connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function eventually(check: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !(await check()); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > end) throw new Error(`still not: ${what}`);
  }
}

it('takes its dev server with it when SIGKILLed, so the next start on the same ports comes up', async () => {
  const ports = { port: await freePort(), temporal: await freePort(), ui: await freePort() };
  svc = await startEmbedded({ ports });
  const dataDir = svc.dataDir;
  const devPid = Number(readFileSync(join(dataDir, 'temporal.pid'), 'utf8'));
  expect(pidAlive(devPid)).toBe(true);
  expect(await listening(ports.temporal)).toBe(true);

  // npm and the service die at once; the dev server's process group is not theirs.
  svc.signal('SIGKILL');
  await svc.exited;
  await eventually(async () => !(await listening(ports.temporal)) && !(await listening(ports.ui)), 'the dev server stopped listening');
  await eventually(() => {
    try {
      process.kill(-devPid, 0);
      return false;
    } catch {
      return true;
    }
  }, "the dev server's process group gone");

  svc = await startEmbedded({ dataDir, ports });
  expect(svc.output()).not.toContain('address already in use');
  expect((await fetch(`${svc.base}/healthz`)).status).toBe(200);
}, 240_000);

it("stops a dev server an earlier run left running (found by DATA_DIR/temporal.pid), and leaves another program's pid alone", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'dc-stale-'));
  const pidFile = join(dataDir, 'temporal.pid');
  const port = await freePort();
  // What an earlier build left after a crash: the server alone in its own process group.
  const stale = spawn(resolveTemporalBin(), ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--log-level', 'error'], { detached: true, stdio: 'ignore' });
  try {
    await eventually(() => listening(port), 'the stale dev server listening', 60_000);
    writeFileSync(pidFile, String(stale.pid));
    expect(await stopStaleDevServer(pidFile)).toEqual({ pid: stale.pid, outcome: 'stopped' });
    expect(pidAlive(stale.pid!)).toBe(false);
    expect(await listening(port)).toBe(false);
    expect(await stopStaleDevServer(pidFile)).toBeNull();
  } finally {
    if (stale.exitCode === null) stale.kill('SIGKILL');
  }

  const other = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
  try {
    writeFileSync(pidFile, String(other.pid));
    expect(await stopStaleDevServer(pidFile)).toEqual({ pid: other.pid, outcome: 'not_ours' });
    expect(pidAlive(other.pid!)).toBe(true);
  } finally {
    other.kill('SIGKILL');
  }
}, 120_000);

/** The pids of the watchdogs (platform/temporal-server.ts) watching the server `serverPid`. */
function watchdogsOf(serverPid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
        return argv[0] === '/bin/sh' && argv.includes('watchdog') && argv.includes(String(serverPid));
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

it('a dev server that ends on its own takes its watchdog with it, and the watchdog is one process with no child', async () => {
  const port = await freePort();
  const server = await startDevServer({ port, uiPort: await freePort() });
  const pid = server.child.pid!;
  try {
    const dogs = watchdogsOf(pid);
    expect(dogs).toHaveLength(1);
    // Waiting on its stdin alone: no polling shell or sleep beside it (~3 MB of npm start's VmRSS).
    expect(readFileSync(`/proc/${dogs[0]}/task/${dogs[0]}/children`, 'utf8').trim()).toBe('');
    server.child.kill('SIGKILL');
    await eventually(() => !pidAlive(dogs[0]!), 'the watchdog gone with its server', 10_000);
  } finally {
    await server.stop();
  }
}, 120_000);
