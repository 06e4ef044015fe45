// The inner loop, `npm run test:fast`: the unit tests and the in-process route tests, with no
// database server (PGlite where a test needs a database) and none of the Temporal dev server,
// SeaweedFS or workflow bundle of vitest.config.ts (none of these files injects what it provides).
// `npm test` runs these files too, with everything else.
import { defineConfig } from 'vitest/config';

/** The unit tests that need a real Postgres server (the full suite's): run by `npm test` only. */
export const serverTests = [
  'test/unit/email-activity.test.ts',
  'test/unit/platform-faults.test.ts',
  'test/unit/prepared-statements.test.ts',
  'test/unit/source-limiter.test.ts',
  'test/unit/storable-text.test.ts',
  'test/unit/worker-supervisor.test.ts',
];

/**
 * Slow files the inner loop leaves to `npm test`: the differential format test and the CSV dialect
 * and time_zone test (each half a minute of outside readers in Python), the open-files bounds (thousands of parts written and zipped, ~11 s)
 * and the import-layering check (dependency-cruiser over the tree, ~10 s; `npm run lint` runs it too).
 */
const slowTests = ['test/unit/format-differential.test.ts', 'test/unit/csv-dialects.test.ts', 'test/unit/render-bounds.test.ts', 'test/unit/layering.test.ts'];

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/routes/**/*.test.ts'],
    exclude: [...serverTests, ...slowTests],
    reporters: ['default', './test/support/summary-reporter.ts'],
    // The Python readers and zstandard of the format tests, installed on the first run.
    globalSetup: ['test/support/tools-setup.ts'],
    pool: 'forks',
    // Three, on 2 cores: several files mostly wait on timers and sockets (source-request, sync).
    maxWorkers: 3,
    // The files of a worker share its loaded modules: importing the API's graph (Temporal's client,
    // Hono, zod, drizzle) in every file was half the CPU of this run. The files therefore keep no
    // state of their own in modules (each route file builds its own app and database).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
