// The inner loop, `npm run test:fast`: the unit tests and the in-process route tests, without the
// global setup of vitest.config.ts (no Temporal dev server, no SeaweedFS, no workflow bundle; none
// of these files injects what it provides). `npm test` runs these files too, with everything else.
// The unit tests that read a database (fetch-pages, source-request) use the local Postgres.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/routes/**/*.test.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // The files of a worker share its loaded modules: importing the API's graph (Temporal's client,
    // Hono, zod, drizzle) in every file was half the CPU of this run. The files therefore keep no
    // state of their own in modules (each route file builds its own app and database).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
