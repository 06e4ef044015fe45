// The task row follows the workflow through these activities; the changes themselves are
// domain/tasks/status.ts, the one writer of status and stage.
import { ApplicationFailure } from '@temporalio/common';
import type { Activities } from '../model/activities.js';
import { getProject } from '../domain/projects/projects.js';
import { requireTask } from '../domain/tasks/queries.js';
import { admit, cancelActive, finishTask, setStage } from '../domain/tasks/status.js';
import type { ActivityDeps } from './deps.js';

type TaskStateActivities = Pick<Activities, 'startTask' | 'setStage' | 'completeTask' | 'failTask' | 'markCancelled'>;

export function createTaskStateActivities({ db }: ActivityDeps): TaskStateActivities {
  return {
    /**
     * queued → running once the project has a free slot (max_running_tasks). While it has none,
     * fails retryably so Temporal polls again; the workflow gives this activity unlimited attempts.
     */
    async startTask({ taskId }) {
      const { admission, limit } = await admit(db, taskId);
      if (admission === 'no_slot') {
        const task = await requireTask(db, taskId);
        throw ApplicationFailure.create({
          type: 'waiting_for_slot',
          message: `project ${task.projectId} is at its limit of ${limit} running tasks`,
          nextRetryDelay: 2000,
        });
      }
      return { proceed: admission === 'admitted' };
    },

    async setStage({ taskId, stage }) {
      return { ok: await setStage(db, taskId, stage) };
    },

    async completeTask({ taskId, files }) {
      const task = await requireTask(db, taskId);
      const hours = (await getProject(db, task.projectId))?.retentionHours ?? 168;
      const expiresAt = new Date(Date.now() + hours * 3600_000);
      return { ok: await finishTask(db, taskId, { status: 'succeeded', files, expiresAt }) };
    },

    async failTask({ taskId, code, message }) {
      return { ok: await finishTask(db, taskId, { status: 'failed', errorCode: code, errorMessage: message }) };
    },

    /** A run cancelled from outside the API (Temporal UI or CLI) still ends as a cancelled task. */
    async markCancelled({ taskId }) {
      return { ok: (await cancelActive(db, taskId)) !== undefined };
    },
  };
}
