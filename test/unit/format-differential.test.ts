// Differential test of every format (docs/formats.md, issue 30 §13 "Exactness and bounds"):
// fast-check generates adversarial source pages (test/support/format-world.ts), a real HTTP source
// serves them, the real activities export them as CSV, JSON Lines (each plain, gzip and zstd),
// xlsx and Parquet, split by max_file_rows, and independent readers (Python's csv, json, gzip,
// the zstd command, openpyxl, pyarrow and DuckDB) read every part back, each value compared with
// what the source sent by the documented rules (test/support/format-expected.ts).
// A failure prints fast-check's seed and path (replay: FUZZ_SEED=… FUZZ_PATH=…) and the world;
// each world it found is kept below as a fixed example. Longer runs: `npm run bench -- fuzz-formats --runs N`.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Differential, startDifferential } from '../support/format-differential.js';
import { FOUND, worldArb } from '../support/format-world.js';

let d: Differential;
beforeAll(async () => {
  d = await startDifferential();
}, 120_000);
afterAll(async () => {
  await d?.close();
});

describe('every format read back by an independent reader holds the source values', () => {
  for (const [name, world] of Object.entries(FOUND)) {
    it(`found case: ${name}`, async () => {
      expect(await d.check(world)).toEqual([]);
    }, 120_000);
  }

  it('on generated adversarial pages', async () => {
    const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
    await fc.assert(
      fc.asyncProperty(worldArb, async (world) => {
        const problems = await d.check(world);
        if (problems.length) throw new Error(`${problems.slice(0, 20).join('\n')}\nworld: ${JSON.stringify(world)}`);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 4), endOnFailure: true, ...(seed !== undefined ? { seed, path: process.env.FUZZ_PATH } : {}) },
    );
    // A bound on a loaded machine, not a measure: each world is ~5 s of exports and reads.
  }, 600_000);
});
