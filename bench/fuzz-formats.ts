// `npm run bench -- fuzz-formats [--runs N] [--seed S]`: the differential format test
// (test/unit/format-differential.test.ts) for longer: N generated worlds (default 200) exported as
// every type and compression and read back by the independent readers, with fast-check's shrinking
// on (the test stops at the first failure to stay short). A failure prints the seed, the path and
// the smallest world found: keep it in FOUND (test/support/format-world.ts) once fixed.
import fc from 'fast-check';
import { startDifferential } from '../test/support/format-differential.js';
import { worldArb } from '../test/support/format-world.js';

export async function fuzzFormats(runs: number, seed?: number): Promise<string> {
  const d = await startDifferential();
  const started = Date.now();
  try {
    const result = await fc.check(
      fc.asyncProperty(worldArb, async (world) => {
        const problems = await d.check(world);
        if (problems.length) throw new Error(problems.slice(0, 20).join('\n'));
      }),
      { numRuns: runs, ...(seed !== undefined ? { seed } : {}) },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    if (!result.failed) return `fuzz-formats: ${result.numRuns} worlds, every format agrees (${seconds} s, seed ${result.seed})`;
    return [
      `fuzz-formats: FAILED after ${result.numRuns} worlds (${seconds} s); replay: FUZZ_SEED=${result.seed} FUZZ_PATH=${result.counterexamplePath}`,
      String((result.errorInstance as Error | undefined)?.message ?? result.errorInstance),
      `world: ${JSON.stringify(result.counterexample?.[0])}`,
    ].join('\n');
  } finally {
    await d.close();
  }
}
