// Workers watch the task events (the same NOTIFY the WebSocket uses) and dispatch a project whose
// task was queued: a submission whose API process died before it could start the run is started
// within moments, and a start whose claim lapsed is swept once it has. The dispatch waits a moment:
// the submitting API has normally done it already, and a burst of submissions (each a notice) is
// one dispatch of the watcher, not one per task beside the API's own work.
import type { Database } from '../../../db/client.js';
import { logger } from '../../../platform/logger.js';
import { TASK_EVENTS_CHANNEL } from '../events.js';
import { type AdmissionDeps, dispatch } from './admit.js';
import { START_CLAIM_MS } from './claim.js';
import { sweepProject } from './sweep.js';

/** How long after a queued notice the watcher dispatches the project (a backstop, not the normal path). */
export const WATCH_DISPATCH_DELAY_MS = 1000;

/** A claim taken with the notice's task has lapsed by then, unless its starter still renews it. */
const SWEEP_DELAY_MS = START_CLAIM_MS + 1000;

export async function watchQueue(deps: AdmissionDeps & { database: Database }): Promise<() => Promise<void>> {
  // Per project: one dispatch at a time (a notice meanwhile runs it once more afterwards), and one
  // pending sweep however many notices arrive (a burst of submissions is one timer, not many).
  const running = new Map<string, boolean>();
  const sweeps = new Map<string, NodeJS.Timeout>();
  const dispatches = new Map<string, NodeJS.Timeout>();
  let stopped = false;
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
  const later = (timers: Map<string, NodeJS.Timeout>, projectId: string, ms: number, job: () => Promise<unknown>) => {
    if (stopped || timers.has(projectId)) return;
    const t = setTimeout(() => {
      timers.delete(projectId);
      run(projectId, job);
    }, ms);
    t.unref();
    timers.set(projectId, t);
  };
  // Starts another process still holds are looked at again until they have begun or been swept.
  const sweepSoon = (projectId: string) =>
    later(sweeps, projectId, SWEEP_DELAY_MS, async () => {
      if ((await sweepProject(deps, projectId)).pending > 0) sweepSoon(projectId);
    });
  const onNotice = (payload: string) => {
    let n: { project?: string; status?: string };
    try {
      n = JSON.parse(payload) as typeof n;
    } catch {
      return;
    }
    if (n.status !== 'queued' || !n.project) return;
    later(dispatches, n.project, WATCH_DISPATCH_DELAY_MS, () => dispatch(deps, n.project!));
    sweepSoon(n.project);
  };
  const unlisten = await deps.database.listen(TASK_EVENTS_CHANNEL, onNotice);
  return async () => {
    stopped = true;
    for (const t of [...sweeps.values(), ...dispatches.values()]) clearTimeout(t);
    await unlisten();
  };
}
