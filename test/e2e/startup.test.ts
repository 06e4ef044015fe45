// Start-up and health when a dependency is missing: a clear message naming it, never a hang.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { healthApp } from '../../api/routes/health.js';
import { loadConfig } from '../../platform/config.js';
import { openCore } from '../../app/runtime.js';
import { projectRoot } from '../../platform/paths.js';
import { createDatabase, dropDatabase } from '../support/env.js';
import { databaseUrl } from '../support/pg.js';
import { workerPids } from '../support/embedded.js';
import { freePort } from '../support/ports.js';

function run(script: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: projectRoot, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env } });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('start-up', () => {
  it('stops on a bad setting, naming the variable', async () => {
    const res = await run('app/api.ts', { PORT: 'eighty' });
    expect(res.code).toBe(1);
    expect(res.out).toMatch(/cannot start: invalid environment: PORT/);
  });

  it("shows the dev server's own reason and the setting that moves its port", async () => {
    const port = await freePort();
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    try {
      const res = await run('app/start.ts', { TEMPORAL_PORT: String(port), TEMPORAL_UI_PORT: String(await freePort()), DATA_DIR: mkdtempSync(join(tmpdir(), 'dc-')) });
      expect(res.code).toBe(1);
      expect(res.out).toContain(`listen tcp 127.0.0.1:${port}: bind: address already in use`);
      expect(res.out).toContain(`Port ${port} is taken: set TEMPORAL_PORT to a free port or set TEMPORAL_ADDRESS`);
    } finally {
      squatter.close();
    }
  });

  it("stops when the API's port is taken, naming the setting, its worker process ending with it", async () => {
    const port = await freePort();
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(port, r));
    try {
      const dataDir = mkdtempSync(join(tmpdir(), 'dc-'));
      const res = await run('app/start.ts', { PORT: String(port), TEMPORAL_PORT: String(await freePort()), TEMPORAL_UI_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
      expect(res.code).toBe(1);
      expect(res.out).toContain(`cannot start: port ${port} is already in use (PORT)`);
      expect(res.out).not.toContain('ERR_IPC_CHANNEL_CLOSED');
      // Its worker process, started before the port was tried, ended with it.
      await expect.poll(() => workerPids(dataDir), { timeout: 15_000 }).toEqual([]);
    } finally {
      squatter.close();
    }
  }, 90_000);

  it('says which dependency it cannot reach', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    const noDb = await run('app/worker.ts', { TEMPORAL_ADDRESS: dead, DATABASE_URL: databaseUrl('dc_missing_db'), DATA_DIR: mkdtempSync(join(tmpdir(), 'dc-')) });
    expect(noDb.code).toBe(1);
    expect(noDb.out).toMatch(/cannot reach the database \(DATABASE_URL\)/);
    const url = await createDatabase();
    try {
      const noTemporal = await run('app/api.ts', { TEMPORAL_ADDRESS: dead, DATABASE_URL: url, DATA_DIR: mkdtempSync(join(tmpdir(), 'dc-')) });
      expect(noTemporal.code).toBe(1);
      expect(noTemporal.out).toContain(`cannot reach Temporal at ${dead} (TEMPORAL_ADDRESS)`);
    } finally {
      await dropDatabase(url);
    }
  });
});

it('answers /healthz 503 naming the dependency that is down', async () => {
  const url = await createDatabase();
  const config = loadConfig({ DATABASE_URL: url, DATA_DIR: mkdtempSync(join(tmpdir(), 'dc-')), ADMIN_TOKEN: 'x'.repeat(20), LINK_SECRET: 'y'.repeat(20) });
  const core = await openCore(config);
  const temporal = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: 500 }) });
  try {
    const res = await healthApp({ ...core, temporal }).request('/');
    expect(res.status).toBe(503);
    const body = (await res.json()) as any;
    expect(body.status).toBe('unavailable');
    expect(body.checks.database).toBe('ok');
    expect(body.checks.temporal).toMatch(/^error: (unreachable|timed out after 3s)$/);
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|:\d{4,5}/);
  } finally {
    await core.database.close();
    await dropDatabase(url);
  }
});
