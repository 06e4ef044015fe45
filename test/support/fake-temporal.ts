// A stand-in for the Temporal client, for the route tests (route-app.ts): Temporal is outside what
// they test, so this answers the calls the API makes (start, cancel, pause update, describe,
// schedules and their backfills and due times, the health check) and records them; nothing runs. The e2e tests use the real server.
// It holds just enough state to answer consistently: which runs are open, which schedules exist.
import { type Client, ScheduleNotFoundError, WorkflowNotFoundError } from '@temporalio/client';
import type { Timestamp } from '@temporalio/common';
import { msNumberToTs, tsToMs } from '@temporalio/common/lib/time.js';

export type FakeCall =
  | { kind: 'start'; workflowType: string; workflowId: string; args: unknown[] }
  | { kind: 'cancel' | 'describe'; workflowId: string }
  | { kind: 'update'; workflowId: string; name: string }
  | { kind: 'schedule.create'; scheduleId: string; spec: unknown }
  | { kind: `schedule.${'pause' | 'unpause' | 'trigger' | 'delete'}`; scheduleId: string; note?: string | undefined }
  | { kind: 'schedule.backfill'; scheduleId: string; start: Date; end: Date; overlap: string };

export type RunStatus = 'RUNNING' | 'COMPLETED' | 'CANCELLED';

interface FakeRun {
  workflowType: string;
  status: RunStatus;
  /** Settles when the run closes (cancel, or the test's close()). */
  closed: Promise<void>;
  close(status: Exclude<RunStatus, 'RUNNING'>): void;
}

function openRun(workflowType: string): FakeRun {
  let settle = () => {};
  const run: FakeRun = {
    workflowType,
    status: 'RUNNING',
    closed: new Promise<void>((r) => (settle = r)),
    close(status) {
      run.status = status;
      settle();
    },
  };
  return run;
}

interface FakeSchedule {
  paused: boolean;
  note: string;
  /** An interval schedule's period (ms): its due times are the multiples of it since the epoch, as Temporal's. */
  everyMs?: number | undefined;
  /** Starts a backfill left waiting (Temporal's buffer), as the test sets it. */
  buffered: number;
}

const MINUTE = 60_000;

export class FakeTemporal {
  readonly calls: FakeCall[] = [];
  /** Open and closed runs by workflow id (a retry's new run replaces the entry). */
  readonly runs = new Map<string, FakeRun>();
  readonly schedules = new Map<string, FakeSchedule>();
  /** Called after each start has been answered: a test may play the run's part (finish the task). */
  onStart: ((call: Extract<FakeCall, { kind: 'start' }>) => Promise<void> | void) | undefined;
  /** While true, the health check's call fails as an unreachable server would. */
  down = false;

  /**
   * Typed as the SDK's client, which the API and the domain take. A call the fake does not answer
   * fails loudly, naming itself, rather than as "undefined is not a function" deep in a route.
   */
  readonly client: Client = strict('client', this.build()) as unknown as Client;

  /** Plays a run's end: it saw its row paused, cancelled or finished and closed. */
  closeRun(workflowId: string, status: Exclude<RunStatus, 'RUNNING'> = 'COMPLETED'): void {
    const run = this.runs.get(workflowId);
    if (!run) throw new Error(`no run of ${workflowId} was started`);
    run.close(status);
  }

  /** The calls of one kind, e.g. every start. */
  of<K extends FakeCall['kind']>(kind: K): Array<Extract<FakeCall, { kind: K }>> {
    return this.calls.filter((c): c is Extract<FakeCall, { kind: K }> => c.kind === kind);
  }

  private build() {
    const workflow = {
      start: async (fn: { name: string } | string, opts: { workflowId: string; args?: unknown[] }) => {
        const call = { kind: 'start' as const, workflowType: typeof fn === 'string' ? fn : fn.name, workflowId: opts.workflowId, args: opts.args ?? [] };
        this.calls.push(call);
        this.runs.set(opts.workflowId, openRun(call.workflowType));
        // After the caller has its handle, as a worker would pick the run up.
        if (this.onStart) setImmediate(() => void this.onStart?.(call));
        return { workflowId: opts.workflowId, firstExecutionRunId: `run-${this.calls.length}`, eagerlyStarted: false };
      },
      getHandle: (workflowId: string) => {
        const run = () => {
          const r = this.runs.get(workflowId);
          if (!r) throw new WorkflowNotFoundError(`workflow not found: ${workflowId}`, workflowId, undefined);
          return r;
        };
        return {
          workflowId,
          cancel: async () => {
            this.calls.push({ kind: 'cancel', workflowId });
            run().close('CANCELLED');
          },
          executeUpdate: async (def: { name: string }) => {
            this.calls.push({ kind: 'update', workflowId, name: def.name });
            run();
          },
          describe: async () => {
            this.calls.push({ kind: 'describe', workflowId });
            return { workflowId, status: { name: run().status } };
          },
          result: () => run().closed,
        };
      },
    };
    const schedule = {
      create: async (opts: { scheduleId: string; spec: { intervals?: Array<{ every: number }> } }) => {
        this.calls.push({ kind: 'schedule.create', scheduleId: opts.scheduleId, spec: opts.spec });
        this.schedules.set(opts.scheduleId, { paused: false, note: '', everyMs: opts.spec.intervals?.[0]?.every, buffered: 0 });
        return this.scheduleHandle(opts.scheduleId);
      },
      getHandle: (scheduleId: string) => this.scheduleHandle(scheduleId),
    };
    const workflowService = {
      getSystemInfo: async () => {
        if (this.down) throw new Error('14 UNAVAILABLE: connection refused');
        return {};
      },
      // An interval schedule's due times after startTime up to endTime, at most 1,000 (as the server).
      listScheduleMatchingTimes: async (req: { scheduleId: string; startTime: Timestamp; endTime: Timestamp }) => {
        const every = this.schedules.get(req.scheduleId)?.everyMs;
        if (!every) throw new Error(`the fake computes due times of interval schedules only (${req.scheduleId})`);
        const out: Timestamp[] = [];
        for (let t = (Math.floor(tsToMs(req.startTime) / every) + 1) * every; t <= tsToMs(req.endTime) && out.length < 1000; t += every) out.push(msNumberToTs(t));
        return { startTime: out };
      },
    };
    return { workflow: strict('client.workflow', workflow), schedule: strict('client.schedule', schedule), workflowService: strict('client.workflowService', workflowService) };
  }

  private scheduleHandle(scheduleId: string) {
    const existing = () => {
      const s = this.schedules.get(scheduleId);
      if (!s) throw new ScheduleNotFoundError(`schedule not found: ${scheduleId}`, scheduleId);
      return s;
    };
    const change = (kind: 'pause' | 'unpause', note: string | undefined) => {
      this.calls.push({ kind: `schedule.${kind}`, scheduleId, note });
      Object.assign(existing(), { paused: kind === 'pause', note: note ?? '' });
    };
    return {
      scheduleId,
      // The next due times are a stand-in: Temporal parses and computes them, not these tests.
      describe: async () => {
        const s = existing();
        const info = { nextActionTimes: [new Date(Date.now() + MINUTE), new Date(Date.now() + 2 * MINUTE)] };
        return { info, state: { paused: s.paused, note: s.note }, raw: { info: { bufferSize: s.buffered } } };
      },
      pause: async (note?: string) => change('pause', note),
      unpause: async (note?: string) => change('unpause', note),
      trigger: async () => {
        existing();
        this.calls.push({ kind: 'schedule.trigger', scheduleId });
      },
      backfill: async (b: { start: Date; end: Date; overlap: string }) => {
        existing();
        this.calls.push({ kind: 'schedule.backfill', scheduleId, start: b.start, end: b.end, overlap: b.overlap });
      },
      delete: async () => {
        existing();
        this.calls.push({ kind: 'schedule.delete', scheduleId });
        this.schedules.delete(scheduleId);
      },
    };
  }
}

/** The object, refusing any other (string) property than its own. */
function strict<T extends object>(name: string, target: T): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (typeof prop === 'symbol' || prop in t || prop === 'then' || prop === 'toJSON') return Reflect.get(t, prop, receiver);
      throw new Error(`the API called ${name}.${prop}, which the fake Temporal client does not answer: add it to test/support/fake-temporal.ts`);
    },
  });
}
