// The task row follows the workflow: these activities are the only writers of status and stage.
import { and, count, eq, sql } from 'drizzle-orm';
import { cancelActive, finishTask, requireTask, type TaskStage, updateRunning } from '../db/tasks.js';
import { projects, type StoredFile, tasks } from '../db/schema.js';
import type { ActivityDeps } from './deps.js';
import { ApplicationFailure } from '@temporalio/common';

export interface TaskRef {
  taskId: string;
}

export function createTaskStateActivities({ db }: ActivityDeps) {
  return {
    /**
     * queued → running once the project has a free slot (max_running_tasks). While it has none,
     * fails retryably so Temporal polls again; the workflow gives this activity unlimited attempts.
     */
    async startTask({ taskId }: TaskRef): Promise<{ proceed: boolean }> {
      return db.transaction(async (tx) => {
        const task = await requireTask(tx, taskId);
        if (task.status === 'running') return { proceed: true };
        if (task.status !== 'queued') return { proceed: false };
        // Serialises slot counting per project across API and worker processes.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${task.projectId}))`);
        const [project] = await tx.select().from(projects).where(eq(projects.id, task.projectId));
        const [running] = await tx
          .select({ n: count() })
          .from(tasks)
          .where(and(eq(tasks.projectId, task.projectId), eq(tasks.status, 'running')));
        if (project && (running?.n ?? 0) >= project.maxRunningTasks) {
          throw ApplicationFailure.create({
            type: 'waiting_for_slot',
            message: `project ${task.projectId} is at its limit of ${project.maxRunningTasks} running tasks`,
            nextRetryDelay: 2000,
          });
        }
        const now = new Date();
        await tx
          .update(tasks)
          .set({ status: 'running', stage: 'probing', startedAt: now, updatedAt: now, lanes: {}, files: [] })
          .where(and(eq(tasks.id, taskId), eq(tasks.status, 'queued')));
        return { proceed: true };
      });
    },

    async setStage({ taskId, stage }: TaskRef & { stage: TaskStage }): Promise<{ ok: boolean }> {
      return { ok: await updateRunning(db, taskId, { stage }) };
    },

    async completeTask({ taskId, files }: TaskRef & { files: StoredFile[] }): Promise<{ ok: boolean }> {
      const task = await requireTask(db, taskId);
      const [project] = await db.select().from(projects).where(eq(projects.id, task.projectId));
      const hours = project?.retentionHours ?? 168;
      const expiresAt = new Date(Date.now() + hours * 3600_000);
      return { ok: await finishTask(db, taskId, { status: 'succeeded', files, expiresAt }) };
    },

    async failTask({ taskId, code, message }: TaskRef & { code: string; message: string }): Promise<{ ok: boolean }> {
      return { ok: await finishTask(db, taskId, { status: 'failed', errorCode: code, errorMessage: message }) };
    },

    /** A run cancelled from outside the API (Temporal UI or CLI) still ends as a cancelled task. */
    async markCancelled({ taskId }: TaskRef): Promise<{ ok: boolean }> {
      return { ok: (await cancelActive(db, taskId)) !== undefined };
    },
  };
}
