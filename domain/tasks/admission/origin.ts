// What differs between the ways a submission starts its run, as one small interface: the API
// starts it after its answer (starter.ts, ADR 0020); a sync request starts its own sync run and
// waits for it (docs/adr/0017-lean-sync-exports.md); a schedule's run waits for the start, and a
// start Temporal refuses removes the task, so the run is retried with nothing left behind.
import type { Client } from '@temporalio/client';
import type { ProjectRow, TaskRow } from '../../../db/schema.js';
import type { Admission } from './service.js';

/** A task Admission.accept recorded just now. */
export interface Accepted {
  /** `admittedAt` set: it holds a slot now and its start is claimed by the caller. */
  task: TaskRow;
  project: ProjectRow;
  /** Queued while others wait beside free slots: the project's queue is dispatched. */
  dispatch: boolean;
}

export interface Origin {
  /** The schedule whose run submits (recorded on the task), or null. */
  readonly scheduleId: string | null;
  /** A sync export holds a slot from the start and never waits in the queue. */
  readonly outsideQueue: boolean;
  /** Starts the run of the task just accepted, or the project's dispatch. */
  start(accepted: Accepted): Promise<void>;
}

/**
 * Starts the run before the caller is answered (a schedule's run; a sync request without a sync
 * slot). A crash here leaves the task queued, or admitted with a claim that lapses, and the
 * workers' watcher or the sweep starts it (watch.ts).
 */
export function startInline(admission: Admission, scheduleId: string | null = null): Origin {
  return {
    scheduleId,
    outsideQueue: false,
    async start({ task, project, dispatch }) {
      if (task.admittedAt) return void (await admission.start(task, { project }, 'remove'));
      const err = dispatch ? (await admission.dispatch(project.id, task.id)).failed.get(task.id) : undefined;
      if (err) throw err; // removed already, while it held its slot
    },
  };
}

/** What a sync request times: the task recorded, its run started (eagerly or through the task queue). */
export interface SyncSteps {
  inserted(): void;
  started(eagerly: boolean): void;
}

/**
 * POST /v1/tasks/sync with a sync slot held: the task is admitted when its project has a free slot
 * (it does not wait behind queued tasks) and its run is the sync export. Without a free slot it is
 * recorded queued, an ordinary export started inline, and the caller answered 202.
 */
export function startSync(admission: Admission, eager: Client | undefined, steps: SyncSteps): Origin {
  const inline = startInline(admission);
  return {
    scheduleId: null,
    outsideQueue: true,
    async start(accepted) {
      const { task, project } = accepted;
      if (!task.admittedAt) return inline.start(accepted);
      steps.inserted();
      const eagerly = await admission.start(task, { project, eager, sync: true }, 'remove');
      steps.started(eagerly);
    },
  };
}
