// Fake activities for the export workflow's tests on the time-skipping server: each records its
// input in a shared order, and a test replaces the ones whose behaviour it is about.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import type { Activities, DeliverInput, FetchPagesInput, FetchPagesOutput, ProbeOutput } from '../../model/activities.js';
import type { ExportInput } from '../../workflows/export.js';

/** The activities the export workflow uses; expireTasks, deliverCallback and the others are not its own. */
export type ExportActivities = Omit<Activities, 'expireTasks' | 'deliverCallback' | 'sendTaskEmail' | 'sweepAdmission' | 'submitScheduledRun'>;
export type Name = keyof ExportActivities;

export interface Call {
  name: Name;
  input: any;
  /** Global order of events in this test (calls, lane stops), across concurrent activities. */
  seq: number;
}

export interface Recorder {
  calls: Call[];
  /** Lanes whose fetch saw the cancellation, with the order in which each finished stopping. */
  stopped: Array<{ lane: number; seq: number }>;
  next(): number;
  of(name: Name): Call[];
  names(): Name[];
}

export function recorder(): Recorder {
  let seq = 0;
  const calls: Call[] = [];
  return {
    calls,
    stopped: [],
    next: () => ++seq,
    of: (name) => calls.filter((c) => c.name === name),
    names: () => calls.map((c) => c.name),
  };
}

/**
 * Fakes of every activity the export workflow calls, each recording its input; `over` replaces
 * some of them (after the call is recorded). A chunk's fetch succeeds in full by default.
 */
export function fakes(rec: Recorder, probe: ProbeOutput, over: Partial<ExportActivities> = {}): ExportActivities {
  const base: ExportActivities = {
    startTask: async () => ({ proceed: true }),
    setStage: async () => ({ ok: true }),
    completeTask: async () => ({ ok: true }),
    failTask: async () => ({ ok: true }),
    markCancelled: async () => ({ ok: true }),
    pauseTask: async () => ({ ok: true }),
    requeueTask: async () => ({ admitted: false }),
    stagedGaps: async () => ({ total: probe.total, pageSize: probe.pageSize, gaps: [] }),
    probeSource: async () => probe,
    fetchPages: async (i: FetchPagesInput): Promise<FetchPagesOutput> => ({ pages: i.toPage - i.fromPage, rows: (i.toPage - i.fromPage) * probe.pageSize }),
    verifyStaged: async () => ({ pages: probe.pagesTotal }),
    publishFiles: async ({ outputs }) => ({ files: outputs }),
    discardStaged: async () => ({ ok: true }),
    deliverFiles: async ({ files }) => ({ files: files.map((f) => ({ ...f, delivered_to: `s3://bucket/${f.name}` })) }),
    renderFile: async ({ taskId }) => ({ outputs: [{ name: 'export.csv', key: `staging/${taskId}/export.csv`, bytes: 10, rows: probe.total, sha256: '0'.repeat(64) }] }),
  };
  const impl = { ...base, ...over };
  const out = {} as Record<Name, (input: any) => Promise<unknown>>;
  for (const name of Object.keys(impl) as Name[]) {
    const fn = impl[name] as (input: any) => Promise<unknown>;
    out[name] = async (input: any) => {
      rec.calls.push({ name, input, seq: rec.next() });
      return fn(input);
    };
  }
  return out as unknown as ExportActivities;
}

export const probeOf = (total: number, pageSize = 100): ProbeOutput => ({ total, pageSize, pagesTotal: Math.ceil(total / pageSize) });

export function input(taskId: string): ExportInput {
  return { taskId, type: 'csv', retry: { initialMs: 100, maxAttempts: 3, maxIntervalMs: 60_000, backoff: 'exponential' }, run: 1, callback: false, heartbeatTimeoutMs: 2000 };
}


/**
 * A worker of these activities on the test server, its callbacks recorded as delivered (2xx at the
 * first attempt); `body` runs while it polls. What `body` answered, and the callbacks delivered.
 */
export async function withCallbackWorker<T>(env: TestWorkflowEnvironment, taskQueue: string, activities: ExportActivities, body: () => Promise<T>): Promise<{ result: T; delivered: DeliverInput[] }> {
  const delivered: DeliverInput[] = [];
  const deliverCallback = async (i: DeliverInput) => {
    delivered.push(i);
    return { delivered: true, attempt: 1, statusCode: 204 };
  };
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: { code: inject('workflowBundleCode') }, activities: { ...activities, deliverCallback } });
  return { result: await worker.runUntil(body), delivered };
}
