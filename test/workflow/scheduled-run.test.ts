// The scheduled run on the time-skipping test server (it has no Schedules API, so the runs are
// started here as a Schedule starts them: with TemporalScheduledStartTime set to the due time).
// What the workflow owes the window (ADR 0034): the due time Temporal gave it, never its own clock,
// and a key per execution, so that a run again of the same due time is a run of its own.
import { randomUUID } from 'node:crypto';
import { defineSearchAttributeKey, SearchAttributeType, TypedSearchAttributes } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { SubmitRunInput } from '../../model/schedule.js';
import { scheduledRunWorkflow } from '../../workflows/scheduled-run.js';
import { patchIds } from '../support/histories.js';
import { startTimeSkipping } from '../support/time-skipping.js';

const SCHEDULED_START = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME);
const taskQueue = `wf-scheduled-${randomUUID()}`;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await startTimeSkipping();
  // The real server sets and knows it; the test server must be told of it first.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: { TemporalScheduledStartTime: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME },
  });
});
afterAll(async () => {
  await env?.teardown();
});

it('hands each run its due time, not its clock, and keys it by its execution', async () => {
  const seen: SubmitRunInput[] = [];
  const submitScheduledRun = async (input: SubmitRunInput) => {
    seen.push(input);
    return { outcome: 'submitted' as const, taskId: `tsk_${seen.length}` };
  };
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: { code: inject('workflowBundleCode') }, activities: { submitScheduledRun } });
  // Three hourly due times in the past, as a backfill starts them; the third twice (a backfill of a time that ran).
  const due = ['2026-11-20T01:00:00.000Z', '2026-11-20T02:00:00.000Z', '2026-11-20T03:00:00.000Z', '2026-11-20T03:00:00.000Z'];
  const runs = await worker.runUntil(async () => {
    const out = [];
    for (const at of due) {
      const handle = await env.client.workflow.start(scheduledRunWorkflow, {
        taskQueue,
        workflowId: `sch_wf.run-${at.slice(0, 19)}Z`,
        args: [{ scheduleId: 'sch_wf' }],
        typedSearchAttributes: new TypedSearchAttributes([{ key: SCHEDULED_START, value: new Date(at) }]),
      });
      expect(await handle.result()).toMatchObject({ outcome: 'submitted' });
      out.push({ runId: handle.firstExecutionRunId, patches: patchIds((await handle.fetchHistory()).events) });
    }
    return out;
  });
  expect(seen.map((s) => s.scheduledAt)).toEqual(due);
  expect(seen.map((s) => s.run)).toEqual(runs.map((r) => r.runId));
  expect(new Set(seen.map((s) => s.run)).size).toBe(4);
  for (const r of runs) expect(r.patches).toEqual([]);
});
