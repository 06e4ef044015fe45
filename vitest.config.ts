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
    // The services a test starts run their workers at the API's CPU priority: two test files run at
    // once, and a worker below the other file's processes waits for a core its test is timed on
    // (WORKER_NICE, docs/adr/0057-api-first-under-export-load.md; test/e2e/embedded-worker.test.ts
    // starts npm start with the default and checks it).
    env: { WORKER_NICE: '0' },
    teardownTimeout: 30_000,
  },
});
