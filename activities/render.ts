// Rendering: the staged pages become the output files (domain/staging/render-*.ts).
import { Context } from '@temporalio/activity';
import type { Activities } from '../model/activities.js';
import { settingsFor } from '../domain/projects/projects.js';
import { renderTask } from '../domain/staging/render.js';
import { requireTask } from '../domain/tasks/queries.js';
import { type ActivityDeps, heartbeat } from './deps.js';
import { atBoundary } from './failure.js';

export function createRenderActivities({ db, storage, config }: ActivityDeps): Pick<Activities, 'renderFile'> {
  const job = async (taskId: string) => {
    const ctx = Context.current();
    const task = await requireTask(db, taskId);
    return { task, settings: await settingsFor(db, task.projectId), signal: ctx.cancellationSignal, onProgress: (done: number) => heartbeat(ctx, { done }) };
  };
  const deps = { storage, dataDir: config.DATA_DIR, maxParts: config.MAX_PARTS };
  return atBoundary({
    async renderFile({ taskId }) {
      return { outputs: await renderTask(deps, await job(taskId)) };
    },
  });
}
