// The task row follows the workflow through these activities; the changes themselves are
// domain/tasks/status.ts, the one writer of status and stage. A run that ends or pauses frees its
// project's slot, so each of those dispatches the project's next waiting task at once.
import { ApplicationFailure } from '@temporalio/common';
import type { Activities, StageTiming } from '../model/activities.js';
import { taskErrorCode } from '../model/errors.js';
import { getProject } from '../domain/projects/projects.js';
import { noteRunEnded } from '../domain/schedules/runs.js';
import { Admission } from '../domain/tasks/admission/index.js';
import { requireTask } from '../domain/tasks/queries.js';
import { cancelActive, finishTask, pauseRunning, requeueRunning, setStage, markRunning } from '../domain/tasks/status.js';
import type { ActivityDeps } from './deps.js';
import { observeRun } from './observe.js';
import { atBoundary } from './failure.js';

type TaskStateActivities = Pick<Activities, 'startTask' | 'setStage' | 'completeTask' | 'failTask' | 'markCancelled' | 'pauseTask' | 'requeueTask'>;

export function createTaskStateActivities(deps: ActivityDeps): TaskStateActivities {
  const { db } = deps;
  const admission = new Admission(deps);
  /**
   * The run ended (or paused) and this activity made it so: counted in the metrics, and the slot
   * is free, so the project's next task starts now, not at the next sweep. A scheduled task's end
   * counts towards its schedule's failure streak (idempotent, so a retried step counts it once).
   */
  const next = async (taskId: string, ok: boolean, status: 'succeeded' | 'failed' | 'cancelled' | 'paused', stages?: StageTiming['stages']) => {
    const task = await requireTask(db, taskId);
    if (ok) {
      observeRun(task, status, stages);
      await admission.dispatch(task.projectId);
    }
    if (task.scheduleId) await noteRunEnded(deps, task);
    return { ok };
  };

  /** When a task's files go: the project's retention from now. */
  const expiryOf = async (taskId: string) => {
    const task = await requireTask(db, taskId);
    const hours = (await getProject(db, task.projectId))?.retentionHours ?? 168;
    return new Date(Date.now() + hours * 3600_000);
  };

  return atBoundary({
    /**
     * queued → running; the slot was reserved by admission before the run started. A run whose
     * admission was withdrawn as it started may get here first: it waits (retried) until admitted again.
     */
    async startTask({ taskId }) {
      const outcome = await markRunning(db, taskId);
      if (outcome === 'not_admitted') {
        throw ApplicationFailure.create({ type: 'waiting_for_slot', message: `task ${taskId} waits for a slot of its project`, nextRetryDelay: 2000 });
      }
      if (outcome === 'started') return { proceed: true };
      // Cancelled or paused before its run began: the workflow shows that status in the Temporal UI.
      return { proceed: false, status: (await requireTask(db, taskId)).status };
    },

    async setStage({ taskId, stage }) {
      return { ok: await setStage(db, taskId, stage) };
    },

    async completeTask({ taskId, files, stages }) {
      const expiresAt = await expiryOf(taskId);
      const done = await finishTask(db, taskId, { status: 'succeeded', files, expiresAt });
      // Already succeeded: this step ran before and its result was lost (a local activity runs again
      // when the workflow task that recorded it failed, e.g. across a Temporal restart). Not a cancel:
      // answering ok keeps the files the earlier run published (and counts nothing twice).
      if (!done && (await requireTask(db, taskId)).status === 'succeeded') return { ok: true };
      return next(taskId, done, 'succeeded', stages);
    },

    async failTask({ taskId, code, message, stages, files }) {
      // Checked again here: a failTask scheduled by an older run's code may carry any type.
      const errorCode = taskErrorCode(code);
      const kept = files?.length ? { kept: { files, expiresAt: await expiryOf(taskId) } } : {};
      return next(taskId, await finishTask(db, taskId, { status: 'failed', errorCode, errorMessage: message, ...kept }), 'failed', stages);
    },

    /** A run cancelled from outside the API (Temporal UI or CLI) still ends as a cancelled task. */
    async markCancelled({ taskId, stages }) {
      const here = (await cancelActive(db, taskId)) !== undefined;
      const task = await requireTask(db, taskId);
      // Counted whether the API or this run cancelled the row: every cancelled run passes here.
      observeRun(task, 'cancelled', stages);
      if (here) await admission.dispatch(task.projectId);
      return { ok: here };
    },

    async requeueTask({ taskId }) {
      return { admitted: (await requeueRunning(db, taskId)).admitted };
    },

    async pauseTask({ taskId, stages }) {
      return next(taskId, await pauseRunning(db, taskId), 'paused', stages);
    },
  });
}
