// Histories recorded from workflows as they ran (test/fixtures/histories, recorded by
// test/record/histories.record.ts) replayed against today's workflow code: a change that would
// break runs in flight fails here. The 1.0 baseline's are `1.0-*`; from 1.0 a change to a
// workflow's commands ships behind patched(), with fixtures recorded by the new code beside the
// old (docs/adr/0040-workflow-versioning-from-1.0.md).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { expect, inject, it } from 'vitest';
import * as workflows from '../../workflows/index.js';
import { fromJSON } from '../support/histories.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'histories');

it('replays every recorded history, of every workflow type, without a determinism error', async () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort();
  expect(files.length).toBeGreaterThanOrEqual(22);
  const histories = files.map((f) => ({ workflowId: f.replace(/\.json$/, ''), history: fromJSON(JSON.parse(readFileSync(join(FIXTURES, f), 'utf8'))) }));
  const types = new Set(histories.map((h) => h.history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name));
  expect([...types].sort()).toEqual(Object.keys(workflows).sort());
  const failures: string[] = [];
  let replayed = 0;
  for await (const r of Worker.runReplayHistories({ workflowBundle: { code: inject('workflowBundleCode') } }, histories)) {
    replayed++;
    if (r.error) failures.push(`${r.workflowId}: ${r.error.message}`);
  }
  expect(replayed).toBe(histories.length);
  expect(failures).toEqual([]);
}, 120_000);
