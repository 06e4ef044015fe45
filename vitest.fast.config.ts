// The inner loop, `npm run test:fast`: the unit tests and the in-process route tests, without the
// global setup of vitest.config.ts (no Temporal dev server, no SeaweedFS, no workflow bundle).
// `npm test` runs these files too, with everything else.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/routes/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
