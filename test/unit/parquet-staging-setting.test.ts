// PARQUET_STAGING (docs/operations.md, "Upgrading workers one by one"): a Parquet export's lanes
// stage its columns' values (.pqv) by default, and with `lines` the columns' JSON lines (.ndjson) that
// a 1.0 worker's render reads, each line the page's row with the columns' keys.
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { tasks } from '../../db/schema.js';
import { chainOf, type FetchHarness, runActivity, startFetchHarness } from '../support/activity-env.js';
import { defaultRow, sourcePool } from '../support/source-server.js';

const TOTAL = 35;
const PAGES = 4;
const { source, closeSources } = sourcePool();
const harnesses: FetchHarness[] = [];

afterAll(async () => {
  await closeSources();
  await Promise.all(harnesses.map((h) => h.close()));
});

/** The pieces a Parquet export's lanes stage under the setting. */
async function stagedBy(setting: Record<string, string>) {
  const h = await startFetchHarness(setting);
  harnesses.push(h);
  const src = await source({ total: TOTAL });
  const taskId = await h.newTask(src.url, { probe: false });
  await h.database.db.update(tasks).set({ type: 'parquet' }).where(eq(tasks.id, taskId));
  await runActivity({}, () => h.activities.probeSource({ taskId })).result;
  expect(await runActivity({}, () => h.activities.fetchPages({ taskId, lane: 0, laneFromPage: 0, fromPage: 0, toPage: PAGES })).result).toEqual({ pages: PAGES, rows: TOTAL });
  const chain = (await chainOf(h.storage, taskId, 0, PAGES))!;
  return { chain, read: (key: string) => h.storage.getBuffer(key) };
}

describe('PARQUET_STAGING', () => {
  it("stages the columns' values by default", async () => {
    const { chain } = await stagedBy({});
    expect(chain.length).toBeGreaterThan(0);
    expect(chain.every((p) => p.key.endsWith('.pqv'))).toBe(true);
  });

  it("stages 1.0's JSON lines with `lines`", async () => {
    const { chain, read } = await stagedBy({ PARQUET_STAGING: 'lines' });
    expect(chain.every((p) => p.key.endsWith('.ndjson'))).toBe(true);
    const lines = (await Promise.all(chain.map((p) => read(p.key)))).map((b) => b.toString('utf8')).join('').split('\n').filter(Boolean);
    expect(lines.map((l) => JSON.parse(l))).toEqual(Array.from({ length: TOTAL }, (_, i) => defaultRow(i)));
  });
});
