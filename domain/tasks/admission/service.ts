// Admission, the one owner of starting runs (docs/adr/0022-admission-one-owner.md,
// docs/adr/0042-admission-service-and-typed-options.md). Its vocabulary:
//   accept    records a submission's task and takes one of its project's slots or queues it;
//   start     starts the workflow run of a task admitted and claimed (accept's, or the caller's);
//   dispatch  admits and starts the project's next waiting tasks when a slot frees (a run ending
//             or pausing, a cancel, a retry, a resume, a setting);
//   sweep     starts what a crash left: starts whose claim lapsed, queues nobody dispatched.
// The rules a race needs (the slot count, the admission lock, de-duplication, the submit rate, the
// start claims) are database functions (db/functions/); this class calls them and starts runs.
// How a submission's run starts (the API, a sync request, a schedule) is its Origin's (origin.ts).
import type { TaskRow } from '../../../db/schema.js';
import { DomainError } from '../../errors.js';
import { deleteUnstarted } from '../status.js';
import { type Acceptance, acceptSubmission, findDuplicate, type NewTaskValues } from './accept.js';
import { admitNext, claimLapsed, projectsWaiting, startsPending, withdraw } from './admit.js';
import { renewClaims } from './claim.js';
import { type RunDeps, type StartHow, startWorkflowRun } from './run.js';

export type AdmissionDeps = RunDeps;

export interface Started {
  started: string[];
  /** Tasks whose run Temporal refused: each gave its slot back and waits in its queue again. */
  failed: Map<string, Error>;
}

export class Admission {
  constructor(readonly deps: AdmissionDeps) {}

  get db() {
    return this.deps.db;
  }

  /**
   * Records the task in one call of dc_accept_task (accept.ts). `outsideQueue`: a sync export,
   * which holds a slot from the start and never waits in the queue (docs/adr/0017-lean-sync-exports.md).
   */
  accept(values: NewTaskValues, outsideQueue: boolean): Promise<Acceptance> {
    return acceptSubmission(this.db, values, outsideQueue);
  }

  /** The task a submission repeats, by the same rule as accept's. */
  duplicateOf(projectId: string, requestHash: string, idempotencyKey: string | null) {
    return findDuplicate(this.db, projectId, requestHash, idempotencyKey);
  }

  /**
   * Starts the run of an admitted task whose start the caller claimed; whether it started eagerly.
   * A start Temporal refuses throws, and `refused` says what becomes of the task: `withdraw` gives
   * the slot back (it waits in its queue again); `remove` deletes it while it still holds its slot,
   * so no dispatch can admit it in between, and the caller is told nothing ran (temporal_unavailable).
   */
  async start(task: TaskRow, how: StartHow = {}, refused: 'withdraw' | 'remove' = 'withdraw'): Promise<boolean> {
    try {
      return await startWorkflowRun(this.deps, task, how);
    } catch (err) {
      if (refused === 'remove') return this.remove(task, err);
      await withdraw(this.db, task.id);
      throw err;
    }
  }

  /** The task is removed and the caller told: nothing ran, nothing was stored. */
  async remove(task: TaskRow, err: unknown): Promise<never> {
    await deleteUnstarted(this.db, task.id);
    throw new DomainError('temporal_unavailable', `the task could not be scheduled: ${(err as Error).message}`);
  }

  /**
   * Admits and starts as many of the project's waiting tasks as it has free slots (dc_admit_next).
   * `removeIfRefused`: a task just accepted whose caller is told when its start is refused; it is
   * removed, not queued again (start's `remove`).
   */
  async dispatch(projectId: string, removeIfRefused?: string): Promise<Started> {
    return this.startEach(await admitNext(this.db, projectId), removeIfRefused);
  }

  /** Keeps the claims of starts still in hand (queued in a starter, or being made). */
  hold(taskIds: string[]): Promise<void> {
    return renewClaims(this.db, taskIds);
  }

  /** Every project's share of what a crash left (the Temporal Schedule's sweep, every minute). */
  async sweep(): Promise<{ started: number }> {
    let started = (await this.startEach(await claimLapsed(this.db, null))).started.length;
    for (const projectId of await projectsWaiting(this.db)) started += (await this.dispatch(projectId)).started.length;
    return { started };
  }

  /** One project's share of the sweep; `pending`: starts still claimed by others, to look at again. */
  async sweepProject(projectId: string): Promise<{ started: number; pending: number }> {
    const restarted = (await this.startEach(await claimLapsed(this.db, projectId))).started.length;
    const started = restarted + (await this.dispatch(projectId)).started.length;
    return { started, pending: await startsPending(this.db, projectId) };
  }

  /** Starts admitted tasks in order; one refused start does not stop the others. */
  private async startEach(admitted: TaskRow[], removeIfRefused?: string): Promise<Started> {
    const started: string[] = [];
    const failed = new Map<string, Error>();
    for (const task of admitted) {
      try {
        await this.start(task, {}, task.id === removeIfRefused ? 'remove' : 'withdraw');
        started.push(task.id);
      } catch (err) {
        failed.set(task.id, err as Error);
      }
    }
    return { started, failed };
  }
}
