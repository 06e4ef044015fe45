// The worker's scratch disk full while it renders, in split mode: DATA_DIR of the worker process is
// a small tmpfs the test fills (a real ENOSPC; mounting it needs root, as CI has: elsewhere the test
// is skipped with that reason, which the run's summary prints), files in a bucket of the
// suite's SeaweedFS. A CSV and a Parquet export each end failed with storage_failed, no partial
// file is listed or left on the disk, the worker lives on, and once space is back it renders the
// next export exact.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEveryRowOnce, type FaultCluster, startFaultCluster } from '../support/fault-cluster.js';
import { createDatabase, dropDatabase, s3Env } from '../support/env.js';
import { type SourceServer, startSource } from '../support/source-server.js';

const TOTAL = 100_000; // about 4 MB of CSV
const DISK_MB = 8;

let scratch: string;
let databaseUrl: string;
let cluster: FaultCluster;
let src: SourceServer;

/** The files on the worker's disk (its folders come and go empty). */
const onDisk = () => readdirSync(scratch, { recursive: true }).map(String).filter((n) => statSync(join(scratch, n)).isFile()).sort();

const asRoot = userInfo().uid === 0;
const NEEDS_ROOT = 'needs root, to mount a small tmpfs as the worker\'s disk (CI runs as root)';

beforeAll(async () => {
  if (!asRoot) return;
  scratch = mkdtempSync(join(tmpdir(), 'dc-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_MB}m`, 'tmpfs', scratch]);
  databaseUrl = await createDatabase();
  cluster = await startFaultCluster({ databaseUrl, env: s3Env(), workers: [{ DATA_DIR: scratch }] });
  src = await startSource({ total: TOTAL });
}, 180_000);
afterAll(async () => {
  await cluster?.close();
  await src?.close();
  if (scratch) {
    execFileSync('umount', [scratch]);
    rmSync(scratch, { recursive: true, force: true });
  }
  if (databaseUrl) await dropDatabase(databaseUrl);
});

describe('the worker disk full while rendering', () => {
  it('fails the export with storage_failed, lists nothing, and serves the next one once space is back', async (ctx) => {
    if (!asRoot) ctx.skip(NEEDS_ROOT);
    const key = await cluster.createProject();
    const before = onDisk();
    // All but half a megabyte of what is free taken (the worker keeps a few files of its own there).
    const free = statfsSync(scratch);
    writeFileSync(join(scratch, 'filler'), Buffer.alloc(free.bavail * free.bsize - 512 * 1024));

    // CSV, and Parquet (its first row group, about 0.7 MB, is written while the disk fills).
    for (const type of ['csv', 'parquet']) {
      const full = await cluster.waitForEnd(await cluster.submit(key, { source_url: src.url, page_size: 1000, type, file_name: 'full' }), key);
      expect(full.status, type).toBe('failed');
      expect(full.error.code, type).toBe('storage_failed');
      expect(full.files, type).toEqual([]);
      expect(onDisk(), type).toEqual([...before, 'filler'].sort());
      expect(cluster.exits(), type).toEqual([]);
    }

    rmSync(join(scratch, 'filler'));
    const ok = await cluster.waitForEnd(await cluster.submit(key, { source_url: src.url, page_size: 1000, file_name: 'roomy' }), key);
    await expectEveryRowOnce(ok, TOTAL);
    expect(cluster.exits()).toEqual([]);
  }, 240_000);
});
