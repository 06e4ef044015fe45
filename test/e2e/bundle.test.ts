import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cachedWorkflowBundle } from '../../app/bundle.js';

it('builds the workflow bundle once, outside the worker process, and reuses it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dc-bundle-'));
  try {
    const first = await cachedWorkflowBundle(dir);
    const built = statSync(first.codePath);
    expect(built.size).toBeGreaterThan(100_000);
    const again = await cachedWorkflowBundle(dir);
    expect(again.codePath).toBe(first.codePath);
    expect(statSync(again.codePath).mtimeMs).toBe(built.mtimeMs);
    expect(readdirSync(dir)).toEqual([first.codePath.split('/').pop()]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
