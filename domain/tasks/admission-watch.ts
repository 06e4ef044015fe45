// Workers watch the task events (the same NOTIFY the WebSocket uses) and dispatch a project whose
// task was queued: a submission whose API process died before it could start the run is started
// within moments, and an admission whose start was lost is retried once it is stale. The dispatch
// waits a moment: the submitting API has normally done it already, and a burst of submissions
// (each a notice) is one dispatch of the watcher, not one per task beside the API's own work.
import type { Database } from '../../db/client.js';
import { type AdmissionDeps, dispatch, STALE_ADMISSION_MS, sweepProject } from './admission.js';
import { logger } from '../../platform/logger.js';
import { TASK_EVENTS_CHANNEL } from './events.js';

/** How long after a queued notice the watcher dispatches the project (a backstop, not the normal path). */
export const WATCH_DISPATCH_DELAY_MS = 1000;

export async function watchQueue(deps: AdmissionDeps & { database: Database }): Promise<() => Promise<void>> {
  // Per project: one dispatch at a time (a notice meanwhile runs it once more afterwards), and one
  // pending stale check however many notices arrive (a burst of submissions is one timer, not many).
  const running = new Map<string, boolean>();
  const staleChecks = new Map<string, NodeJS.Timeout>();
  const dispatches = new Map<string, NodeJS.Timeout>();
  const run = (projectId: string, job: () => Promise<unknown>) => {
    if (running.has(projectId)) return void running.set(projectId, true);
    running.set(projectId, false);
    job()
      .catch((err: Error) => logger('admission', { project_id: projectId }).error({ err }, 'dispatch failed'))
      .finally(() => {
        const again = running.get(projectId);
        running.delete(projectId);
        if (again) run(projectId, () => dispatch(deps, projectId));
      });
  };
  const onNotice = (payload: string) => {
    let n: { project?: string; status?: string };
    try {
      n = JSON.parse(payload) as typeof n;
    } catch {
      return;
    }
    if (n.status !== 'queued' || !n.project) return;
    const projectId = n.project;
    if (!dispatches.has(projectId)) {
      const d = setTimeout(() => {
        dispatches.delete(projectId);
        run(projectId, () => dispatch(deps, projectId));
      }, WATCH_DISPATCH_DELAY_MS);
      d.unref();
      dispatches.set(projectId, d);
    }
    if (staleChecks.has(projectId)) return;
    const t = setTimeout(() => {
      staleChecks.delete(projectId);
      run(projectId, () => sweepProject(deps, projectId));
    }, STALE_ADMISSION_MS + 1000);
    t.unref();
    staleChecks.set(projectId, t);
  };
  const unlisten = await deps.database.listen(TASK_EVENTS_CHANNEL, onNotice);
  return async () => {
    for (const t of [...staleChecks.values(), ...dispatches.values()]) clearTimeout(t);
    await unlisten();
  };
}
