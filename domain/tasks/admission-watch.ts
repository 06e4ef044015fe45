// Workers watch the task events (the same NOTIFY the WebSocket uses) and dispatch a project whose
// task was queued: a submission whose API process died before it could start the run is started
// within moments, and an admission whose start was lost is retried once it is stale.
import type { Database } from '../../db/client.js';
import { type AdmissionDeps, dispatch, STALE_ADMISSION_MS, sweepProject } from './admission.js';
import { logger } from '../../platform/logger.js';
import { TASK_EVENTS_CHANNEL } from './events.js';

export async function watchQueue(deps: AdmissionDeps & { database: Database }): Promise<() => Promise<void>> {
  const busy = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  const run = (projectId: string, job: () => Promise<unknown>) => {
    if (busy.has(projectId)) return;
    busy.add(projectId);
    job()
      .catch((err: Error) => logger('admission', { project_id: projectId }).error({ err }, 'dispatch failed'))
      .finally(() => busy.delete(projectId));
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
    run(projectId, () => dispatch(deps, projectId));
    const t = setTimeout(() => {
      timers.delete(t);
      run(projectId, () => sweepProject(deps, projectId));
    }, STALE_ADMISSION_MS + 1000);
    t.unref();
    timers.add(t);
  };
  const unlisten = await deps.database.listen(TASK_EVENTS_CHANNEL, onNotice);
  return async () => {
    for (const t of timers) clearTimeout(t);
    await unlisten();
  };
}
