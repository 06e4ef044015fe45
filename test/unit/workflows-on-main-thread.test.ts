// The SDK's in-thread mode (app/worker-setup.ts, docs/adr/0055-idle-memory-of-npm-start.md) lifts the
// limit on a workflow activation's run time unless it is given back: this holds it to the SDK's
// version at hand, which reads `isolateExecutionTimeout` from the options though its type omits it.
import { createRequire } from 'node:module';
import { DefaultLogger, type WorkerOptions } from '@temporalio/worker';
import { expect, it } from 'vitest';
import { onMainThread } from '../../app/worker-setup.js';

type Compile = (opts: WorkerOptions, logger: unknown, meter: unknown) => { debugMode: boolean; isolateExecutionTimeoutMs: number };
const { compileWorkerOptions } = createRequire(import.meta.url)('@temporalio/worker/lib/worker-options.js') as { compileWorkerOptions: Compile };

it("workflows on the Worker's thread keep the 5 s limit on an activation, as on a workflow thread", () => {
  const noop = { add() {}, record() {}, set() {}, withTags: () => noop };
  const meter = { createCounter: () => noop, createHistogram: () => noop, createGauge: () => noop, withTags: () => meter };
  const compile = (extra: Partial<WorkerOptions>) => compileWorkerOptions({ taskQueue: 'q', workflowBundle: { code: '' }, ...extra }, new DefaultLogger('ERROR'), meter);
  expect(compile({}).isolateExecutionTimeoutMs).toBe(5000);
  expect(compile(onMainThread)).toMatchObject({ debugMode: true, isolateExecutionTimeoutMs: 5000 });
  // Without it the SDK would let an activation run for 49 days.
  expect(compile({ debugMode: true }).isolateExecutionTimeoutMs).toBe(4294967295);
});
