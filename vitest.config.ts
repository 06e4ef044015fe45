import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // Each file gets its own Postgres database, task queue and worker; two at a time fits 2 cores.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
