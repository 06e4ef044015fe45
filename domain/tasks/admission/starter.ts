// The API's Origin (origin.ts): the runs of accepted submissions start after the caller has its
// answer (ADR 0020). A submission is durable once its row is committed (admitted or queued); the
// run's StartWorkflow follows here, a few at a time, so POST /v1/tasks answers in the time of one
// statement rather than one statement plus a round trip to Temporal. What could be lost here is
// not: a start that fails hands the task back to its project's queue (Admission.start), and a
// start this process never makes (it died) is swept once its claim lapses (claim.ts, watch.ts).
import type { Client } from '@temporalio/client';
import type { TaskRow } from '../../../db/schema.js';
import { logger } from '../../../platform/logger.js';
import { START_CLAIM_MS } from './claim.js';
import type { Accepted, Origin } from './origin.js';
import type { RunProject } from './run.js';
import type { Admission } from './service.js';

/** StartWorkflow calls in flight at once: enough to keep up, few enough to leave the thread to the API. */
const IN_FLIGHT = 8;

/** How often the claims of starts still in hand are renewed: well before they lapse. */
const RENEW_EVERY_MS = START_CLAIM_MS / 3;

type Job = { kind: 'start'; task: TaskRow; project: RunProject } | { kind: 'dispatch'; projectId: string };

export class AfterAnswer implements Origin {
  readonly scheduleId = null;
  readonly outsideQueue = false;
  private readonly jobs: Job[] = [];
  private readonly running = new Set<Promise<void>>();
  /** Projects with a dispatch waiting in `jobs`: one dispatch admits all it can, so a burst asks once. */
  private readonly dispatching = new Set<string>();
  /** Tasks whose start this process claimed and has not made yet (queued here or in flight). */
  private readonly inHand = new Set<string>();
  private renewer: NodeJS.Timeout | undefined;

  /** `eager`: a client on this process's worker connection (runs start eagerly there, run.ts). */
  constructor(
    private readonly admission: Admission,
    private readonly eager?: Client,
  ) {}

  /** Queues the run of a task accepted admitted (its start claimed), or its project's dispatch. */
  start({ task, project, dispatch }: Accepted): Promise<void> {
    if (task.admittedAt) this.startLater(task, project);
    else if (dispatch) this.dispatchLater(project.id);
    return Promise.resolve();
  }

  private startLater(task: TaskRow, project: RunProject): void {
    this.inHand.add(task.id);
    this.renewer ??= setInterval(() => void this.renew(), RENEW_EVERY_MS).unref();
    this.jobs.push({ kind: 'start', task, project });
    this.pump();
  }

  /** A project whose waiting tasks have free slots beside them. */
  private dispatchLater(projectId: string): void {
    if (this.dispatching.has(projectId)) return;
    this.dispatching.add(projectId);
    this.jobs.push({ kind: 'dispatch', projectId });
    this.pump();
  }

  /** Every start asked for so far made (or handed back to admission): before the process stops. */
  async drain(): Promise<void> {
    while (this.jobs.length > 0 || this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private pump(): void {
    while (this.running.size < IN_FLIGHT && this.jobs.length > 0) {
      const job = this.jobs.shift()!;
      if (job.kind === 'dispatch') this.dispatching.delete(job.projectId);
      const p = this.run(job).finally(() => {
        this.running.delete(p);
        this.pump();
      });
      this.running.add(p);
    }
  }

  /** A burst's backlog can outlast a claim: renewed, it is not swept and started a second time. */
  private async renew(): Promise<void> {
    if (this.inHand.size === 0) {
      clearInterval(this.renewer);
      this.renewer = undefined;
      return;
    }
    await this.admission.hold([...this.inHand]).catch((err: Error) => logger('admission').warn({ err }, 'renewing start claims failed: the sweep may start some runs twice (harmless)'));
  }

  private async run(job: Job): Promise<void> {
    // Built only when there is something to say: this runs once per submission.
    const log = () => logger('admission', job.kind === 'start' ? { task_id: job.task.id } : { project_id: job.projectId });
    const refused = (err: unknown, id: string) => log().warn({ err, task_id: id }, 'the run could not start yet: the task waits in its queue for the next dispatch');
    try {
      if (job.kind === 'start') await this.admission.start(job.task, { project: job.project, eager: this.eager }).catch((err: unknown) => refused(err, job.task.id));
      else for (const [id, err] of (await this.admission.dispatch(job.projectId)).failed) refused(err, id);
    } catch (err) {
      log().error({ err }, 'starting runs failed: admission will start them');
    } finally {
      if (job.kind === 'start') this.inHand.delete(job.task.id);
    }
  }
}
