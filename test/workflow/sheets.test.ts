// The export workflow with a workbook of several sheets, on the time-skipping test server with fake
// activities (test/support/export-fakes.ts): lanes planned per sheet and pooled, a resume per sheet.
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import type { ProbeOutput } from '../../model/activities.js';
import { MAX_LANES } from '../../model/plan.js';
import { type ExportOutput, exportWorkflow } from '../../workflows/export.js';
import { type ExportActivities, fakes, input, probeOf, recorder } from '../support/export-fakes.js';
import { timeSkippingPerTest } from '../support/time-skipping.js';

const taskQueue = `wf-sheets-${randomUUID()}`;
const env = timeSkippingPerTest();

async function runExport(activities: ExportActivities, taskId = `t-${randomUUID()}`, resume = false): Promise<ExportOutput> {
  const worker = await Worker.create({ connection: env().nativeConnection, taskQueue, workflowBundle: { code: inject('workflowBundleCode') }, activities });
  return worker.runUntil(env().client.workflow.execute(exportWorkflow, { taskQueue, workflowId: taskId, args: [{ ...input(taskId), type: 'excel', ...(resume ? { resume } : {}) }] }));
}

describe('a workbook of several sheets', () => {
  it('plans lanes per sheet, numbered across sheets, and runs at most MAX_LANES at once', async () => {
    const rec = recorder();
    const sheets = Array.from({ length: 7 }, (_, i) => ({ total: 250 + i, pagesTotal: 3 }));
    const probe: ProbeOutput = { total: sheets.reduce((n, s) => n + s.total, 0), pagesTotal: 21, pageSize: 100, sheets };
    let running = 0;
    let most = 0;
    const result = await runExport(
      fakes(rec, probe, {
        fetchPages: async (i) => {
          most = Math.max(most, ++running);
          await new Promise((r) => setTimeout(r, 50));
          running--;
          return { pages: i.toPage - i.fromPage, rows: 250 };
        },
      }),
    );

    expect(result).toEqual({ status: 'succeeded' });
    expect(most).toBe(MAX_LANES);
    const fetches = rec.of('fetchPages').map((c) => c.input);
    expect(fetches.map((f) => [f.lane, f.sheet, f.fromPage, f.toPage]).sort((a, b) => a[0] - b[0])).toEqual(
      sheets.map((_, i) => [i, i === 0 ? undefined : i, 0, 3]),
    );
  });

  it('resumes each sheet’s missing pages with that sheet named', async () => {
    const rec = recorder();
    const taskId = `t-${randomUUID()}`;
    const result = await runExport(
      fakes(rec, probeOf(500), { stagedGaps: async () => ({ total: 500, pageSize: 100, gaps: [{ from: 2, to: 3 }, { from: 0, to: 2, sheet: 1 }] }) }),
      taskId,
      true,
    );

    expect(result).toEqual({ status: 'succeeded' });
    expect(rec.of('probeSource')).toHaveLength(0);
    // The two lanes fetch at once: compared in lane order.
    expect(rec.of('fetchPages').map((c) => c.input).sort((a, b) => a.lane - b.lane)).toEqual([
      { taskId, lane: 0, laneFromPage: 2, fromPage: 2, toPage: 3 },
      { taskId, lane: 1, sheet: 1, laneFromPage: 0, fromPage: 0, toPage: 2 },
    ]);
  });
});
