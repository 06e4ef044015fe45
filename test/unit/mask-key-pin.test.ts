// An export's hash key is pinned at its probe (docs/adr/0044-masked-columns.md): the staged meta
// names the key by its id (never the key), every lane hashes with that key, and a lane that finds
// the project's key rotated since fails with source_changed (the workflow then starts the export
// over once, from a fresh probe). Real activities on PGlite, the disk store and an HTTP source.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projects } from '../../db/schema.js';
import { rotateMaskKey } from '../../domain/projects/admin.js';
import { maskKeyOf } from '../../domain/projects/mask-key.js';
import { readMeta } from '../../domain/staging/meta.js';
import { type FetchHarness, runActivity, startFetchHarness } from '../support/activity-env.js';
import { type SourceServer, startSource } from '../support/source-server.js';

const SEALING = ['activity-env-sealing-key-0123456789'];
let h: FetchHarness;
let src: SourceServer;

beforeAll(async () => {
  h = await startFetchHarness();
  await h.database.db.update(projects).set({ settings: { mask_columns: { email: 'hash' } } }).where(eq(projects.id, h.projectId));
  src = await startSource({ total: 4, row: (i) => ({ id: i + 1, email: `user${i % 2}@example.com` }) });
});

afterAll(async () => {
  await src?.close();
  await h?.close();
});

/** The staged CSV text of pages [from, to) of a task. */
async function staged(taskId: string): Promise<string> {
  const keys = (await h.storage.list(`staging/${taskId}/pages`)).sort();
  return (await Promise.all(keys.map((k) => h.storage.getBuffer(k)))).map((b) => b.toString('utf8')).join('');
}

const fetch = (taskId: string, fromPage: number, toPage: number) =>
  runActivity({}, () => h.activities.fetchPages({ taskId, lane: fromPage, laneFromPage: fromPage, fromPage, toPage })).result;

describe('the hash key of an export', () => {
  it('is named in the meta by an id that is not the key, and a lane after a rotation fails with source_changed', async () => {
    const taskId = await h.newTask(src.url, { pageSize: 2 });
    const key = await maskKeyOf(h.database.db, h.projectId, SEALING);
    const meta = await readMeta(h.storage, taskId);
    expect(meta.maskKeyId).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(meta)).not.toContain(key);
    expect(key).not.toContain(meta.maskKeyId);

    await fetch(taskId, 0, 1);
    const before = await staged(taskId);
    expect(before).not.toContain('@example.com');

    await rotateMaskKey(h.database.db, h.projectId, SEALING);
    await expect(fetch(taskId, 1, 2)).rejects.toMatchObject({ type: 'source_changed', nonRetryable: true, message: expect.stringContaining('hash key was rotated') as unknown });
    // Nothing of the refused lane was staged with the new key.
    expect(await staged(taskId)).toBe(before);
  });

  it("is pinned afresh by the next probe: the export's pages then hash with the new key alone", async () => {
    const first = await h.newTask(src.url, { pageSize: 2 });
    await fetch(first, 0, 2);
    const old = await staged(first);

    await rotateMaskKey(h.database.db, h.projectId, SEALING);
    const taskId = await h.newTask(src.url, { pageSize: 2 });
    expect((await readMeta(h.storage, taskId)).maskKeyId).not.toBe((await readMeta(h.storage, first)).maskKeyId);
    await fetch(taskId, 0, 1);
    await fetch(taskId, 1, 2);
    const now = await staged(taskId);
    const hashes = (csv: string) => new Set([...csv.matchAll(/[0-9a-f]{64}/g)].map((m) => m[0]));
    // Two distinct e-mails, each one hash in all four rows; none shared with the old key's.
    expect(hashes(now).size).toBe(2);
    expect(hashes(old).size).toBe(2);
    for (const x of hashes(now)) expect(hashes(old).has(x)).toBe(false);
  });
});
