// The worker supervisor's states (app/worker-supervisor.ts) against the run's Postgres reached through
// a proxy the test makes unreachable; the Temporal Worker is a fake (it is the SDK's, not ours):
// running until shut down, or failing on its own.
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../db/client.js';
import { WorkerSupervisor } from '../../app/worker-supervisor.js';
import { metrics } from '../../platform/metrics.js';
import { pgAdminUrl } from '../support/pg.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

class FakeWorker {
  state = 'INITIALIZED';
  private end!: (err?: Error) => void;
  run(): Promise<void> {
    this.state = 'RUNNING';
    return new Promise((resolve, reject) => (this.end = (err) => (err ? ((this.state = 'FAILED'), reject(err)) : ((this.state = 'STOPPED'), resolve()))));
  }
  shutdown(): void {
    if (this.state !== 'RUNNING') throw new Error(`Not running. Current state: ${this.state}`);
    this.state = 'DRAINING';
    setTimeout(() => this.end(), 50);
  }
  getState(): string {
    return this.state;
  }
  fail(err: Error): void {
    this.end(err);
  }
}

let proxy: TcpProxy;
let database: Database;

beforeAll(async () => {
  const pg = new URL(pgAdminUrl());
  proxy = await startTcpProxy(`http://${pg.host}`);
  pg.host = new URL(proxy.url).host;
  database = await openDatabase({ url: pg.href, dataDir: '/nonexistent' });
});
afterAll(async () => {
  await database?.close();
  await proxy?.close();
});

async function supervised() {
  const workers: FakeWorker[] = [];
  const lines: Array<{ msg: string; outage_ms?: number }> = [];
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => void (lines.push(JSON.parse(String(chunk))), done()) }));
  const supervisor = await WorkerSupervisor.start({
    create: async (_report) => (workers.push(new FakeWorker()), workers.at(-1)!),
    probe: () => database.ping(),
    log,
    probeIntervalMs: 200,
  });
  return { supervisor, workers, lines };
}

const until = async (what: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};
const gauge = async () => (await metrics.workerPaused.get()).values[0]?.value;

describe('worker supervisor', () => {
  it('keeps polling when the database answers the confirming probe (a blink is not an outage)', async () => {
    const { supervisor, workers, lines } = await supervised();
    supervisor.databaseUnavailable();
    await new Promise((r) => setTimeout(r, 500));
    expect(supervisor.state).toBe('RUNNING');
    expect(workers).toHaveLength(1);
    expect(lines).toEqual([]);
    await supervisor.stop();
    await expect(supervisor.running).resolves.toBeUndefined();
    expect(workers[0]!.state).toBe('STOPPED');
  });

  it('keeps polling when every pooled connection is busy (the probe has a connection of its own)', async () => {
    const { supervisor, workers, lines } = await supervised();
    // The pool's 10 connections all held for longer than a probe may take.
    const busy = Promise.all(Array.from({ length: 12 }, () => database.db.execute(sql`select pg_sleep(1.5)`)));
    busy.catch(() => {}); // awaited below; a failed assertion before must not leave it unhandled
    await new Promise((r) => setTimeout(r, 100));
    supervisor.databaseUnavailable();
    await new Promise((r) => setTimeout(r, 600));
    expect(supervisor.state).toBe('RUNNING');
    expect(lines).toEqual([]);
    await busy;
    await supervisor.stop();
    expect(workers).toHaveLength(1);
  });

  it('pauses while the database is unreachable and resumes with a fresh worker when it returns', async () => {
    const { supervisor, workers, lines } = await supervised();
    proxy.down();
    supervisor.databaseUnavailable();
    supervisor.databaseUnavailable();
    await until(() => supervisor.paused);
    expect(supervisor.state).toBe('PAUSED');
    await until(() => workers[0]!.state === 'STOPPED');
    expect(await gauge()).toBe(1);
    expect(lines.map((l) => l.msg)).toEqual([expect.stringContaining('worker paused')]);
    // Reports during the pause change nothing; several probes fail meanwhile.
    supervisor.databaseUnavailable();
    await new Promise((r) => setTimeout(r, 1000));
    expect(workers).toHaveLength(1);

    proxy.up();
    await until(() => workers.length === 2 && supervisor.state === 'RUNNING');
    expect(await gauge()).toBe(0);
    expect(lines.map((l) => l.msg)).toEqual([expect.stringContaining('worker paused'), expect.stringContaining('worker resumed')]);
    expect(lines[1]!.outage_ms).toBeGreaterThanOrEqual(1000);
    await supervisor.stop();
    await expect(supervisor.running).resolves.toBeUndefined();
    expect(workers[1]!.state).toBe('STOPPED');
  });

  it('ends on stop() during a pause, without a new worker', async () => {
    const { supervisor, workers } = await supervised();
    proxy.down();
    try {
      supervisor.databaseUnavailable();
      await until(() => supervisor.paused && workers[0]!.state === 'STOPPED');
      await supervisor.stop();
      await expect(supervisor.running).resolves.toBeUndefined();
    } finally {
      proxy.up();
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(workers).toHaveLength(1);
  });

  it('rejects when the worker fails on its own (not a pause)', async () => {
    const { supervisor, workers } = await supervised();
    workers[0]!.fail(new Error('lost the namespace'));
    await expect(supervisor.running).rejects.toThrow('lost the namespace');
    await supervisor.stop();
  });
});
