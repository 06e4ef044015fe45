// The cleaner of `npm run bench -- history expiry` (bench/expiry.ts), in its own process as a
// worker runs it: batches of domain/tasks/expiry.ts over the database at argv[2] until nothing is
// due; prints one JSON line: tasks expired, seconds, and each batch's duration in ms.
import { performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../db/client.js';
import { expireDue } from '../domain/tasks/expiry.js';
import { loadConfig } from '../platform/config.js';
import { LocalStorage } from '../platform/storage/local.js';

const dir = mkdtempSync(join(tmpdir(), 'dc-bench-cleaner-'));
const config = loadConfig({ ...process.env, DATA_DIR: dir });
const database = await openDatabase({ url: process.argv[2]!, dataDir: dir });
const storage = new LocalStorage(join(dir, 'store'));
const batches: number[] = [];
const t0 = performance.now();
let b0 = t0;
const expired = await expireDue(database.db, storage, {
  batch: config.CLEANUP_BATCH_SIZE,
  concurrency: config.CLEANUP_DELETE_CONCURRENCY,
  onBatch: () => {
    const now = performance.now();
    batches.push(now - b0);
    b0 = now;
  },
});
console.log(JSON.stringify({ expired, seconds: (performance.now() - t0) / 1000, batch: config.CLEANUP_BATCH_SIZE, batches }));
await database.close();
rmSync(dir, { recursive: true, force: true });
