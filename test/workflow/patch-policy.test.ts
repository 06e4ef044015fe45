// The versioning procedure of docs/adr/0040-workflow-versioning-from-1.0.md, carried out on an
// example workflow (test/workflow/patch-policy/): a change shipped behind patched() replays the
// histories of runs started before it and those started after; the same change without the guard
// does not (so this test can fail); and each retirement step replays exactly the histories the
// ADR's schedule lets it meet. Histories are recorded on the time-skipping server.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { History } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchIds } from '../support/histories.js';
import { startTimeSkipping } from '../support/time-skipping.js';

const VERSIONS = ['v1', 'v2-patched', 'v3-deprecated', 'v4-removed'] as const;
type Version = (typeof VERSIONS)[number];

const quiet = () => {};
const bundles = {} as Record<Version, string>;
const recorded = {} as Record<'v1' | 'v2-patched' | 'v3-deprecated', { id: string; history: History; result: string }>;
let env: TestWorkflowEnvironment;

/** One run of `version` to its end on its own task queue: its history and result. */
async function record(version: Version) {
  const taskQueue = `policy-${randomUUID()}`;
  const id = `${version}-${randomUUID()}`;
  const step = async (name: string) => name;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: { code: bundles[version] }, activities: { step } });
  const result = await worker.runUntil(env.client.workflow.execute<() => Promise<string>>('policyWorkflow', { taskQueue, workflowId: id }));
  return { id, history: await env.client.workflow.getHandle(id).fetchHistory(), result };
}

const replay = (version: Version, run: { id: string; history: History }) => Worker.runReplayHistory({ workflowBundle: { code: bundles[version] } }, run.history, run.id);
const nondeterministic = /[Nn]ondetermin|DeterminismViolation/;

async function bundleAll(): Promise<void> {
  for (const v of VERSIONS) {
    bundles[v] = (await bundleWorkflowCode({ workflowsPath: join(import.meta.dirname, 'patch-policy', `${v}.ts`), logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: console.warn, error: console.error } })).code;
  }
}

beforeAll(async () => {
  // The server starts while the bundles build.
  [env] = await Promise.all([startTimeSkipping(), bundleAll()]);
  recorded.v1 = await record('v1');
  recorded['v2-patched'] = await record('v2-patched');
  recorded['v3-deprecated'] = await record('v3-deprecated');
}, 60_000);

afterAll(async () => {
  await env?.teardown();
});

describe('a change behind patched()', () => {
  it('records its marker in a new run, which takes the new steps', () => {
    expect(recorded.v1.result).toBe('fetch');
    expect(patchIds(recorded.v1.history.events)).toEqual([]);
    expect(recorded['v2-patched'].result).toBe('fetch+verify');
    expect(patchIds(recorded['v2-patched'].history.events)).toEqual(['dc-policy-example']);
  });

  it('replays a history recorded before the change and one recorded after it', async () => {
    await expect(replay('v2-patched', recorded.v1)).resolves.toBeUndefined();
    await expect(replay('v2-patched', recorded['v2-patched'])).resolves.toBeUndefined();
  });

  it('is needed: the same change without the guard fails to replay the history from before it', async () => {
    await expect(replay('v4-removed', recorded.v1)).rejects.toThrow(nondeterministic);
  });
});

describe('its retirement', () => {
  it('step 1, deprecatePatch: replays the patched runs, not the runs from before the patch (they must have ended)', async () => {
    await expect(replay('v3-deprecated', recorded['v2-patched'])).resolves.toBeUndefined();
    await expect(replay('v3-deprecated', recorded['v3-deprecated'])).resolves.toBeUndefined();
    await expect(replay('v3-deprecated', recorded.v1)).rejects.toThrow(nondeterministic);
  });

  it('step 2, the call removed: replays the runs of step 1, not those of patched() (hence a release later)', async () => {
    await expect(replay('v4-removed', recorded['v3-deprecated'])).resolves.toBeUndefined();
    await expect(replay('v4-removed', recorded['v2-patched'])).rejects.toThrow(nondeterministic);
  });
});
