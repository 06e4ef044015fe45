// Histories recorded from workflows as they ran in production code (test/fixtures/histories,
// recorded by test/record/histories.record.ts) replayed against today's workflow code: a change
// that would break exports in flight fails here. A workflow change that must alter the commands of
// running workflows belongs behind patched(); add a fixture recorded with the new code beside the old.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { expect, inject, it } from 'vitest';
import { fromJSON } from '../support/histories.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'histories');

it('replays every recorded history without a determinism error', async () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort();
  expect(files.length).toBeGreaterThanOrEqual(12);
  const histories = files.map((f) => ({ workflowId: f.replace(/\.json$/, ''), history: fromJSON(JSON.parse(readFileSync(join(FIXTURES, f), 'utf8'))) }));
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories({ workflowBundle: { code: inject('workflowBundleCode') } }, histories)) {
    replayed++;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
  }
  expect(replayed).toBe(histories.length);
  expect(failures).toEqual([]);
}, 120_000);
