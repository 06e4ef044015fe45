// Workers watch the task events (the same NOTIFY the WebSocket uses) and dispatch a project whose
// task was queued: a submission whose API process died before it could start the run is started
// within moments, and a start whose claim lapsed is swept once it has. The dispatch waits a moment:
// the submitting API has normally done it already, and a burst of submissions (each a notice) is
// one dispatch of the watcher, not one per task beside the API's own work.
import type { Database } from '../../../db/client.js';
import { logger } from '../../../platform/logger.js';
import { TASK_EVENTS_CHANNEL } from '../events.js';
import { START_CLAIM_MS } from './claim.js';
import type { Admission } from './service.js';

/** How long after a queued notice the watcher dispatches the project (a backstop, not the normal path). */
export const WATCH_DISPATCH_DELAY_MS = 1000;

/** A claim taken with the notice's task has lapsed by then, unless its starter still renews it. */
const SWEEP_DELAY_MS = START_CLAIM_MS + 1000;

type Kind = 'dispatch' | 'sweep';

export async function watchQueue(admission: Admission, database: Database): Promise<() => Promise<void>> {
  // Per project: one job at a time; a job asked for meanwhile (a dispatch, a sweep) runs once
  // afterwards, however often it was asked; and one pending timer of each kind however many
  // notices arrive (a burst of submissions is one timer, not many).
  const busy = new Set<string>();
  const waiting = new Map<string, Map<Kind, () => Promise<unknown>>>();
  const sweeps = new Map<string, NodeJS.Timeout>();
  const dispatches = new Map<string, NodeJS.Timeout>();
  let stopped = false;
  const run = (projectId: string, kind: Kind, job: () => Promise<unknown>) => {
    if (busy.has(projectId)) return void waiting.set(projectId, (waiting.get(projectId) ?? new Map()).set(kind, job));
    busy.add(projectId);
    job()
      .catch((err: Error) => logger('admission', { project_id: projectId }).error({ err, job: kind }, `${kind} failed`))
      .finally(() => {
        busy.delete(projectId);
        const next = waiting.get(projectId)?.entries().next().value;
        if (!next) return void waiting.delete(projectId);
        waiting.get(projectId)!.delete(next[0]);
        run(projectId, next[0], next[1]);
      });
  };
  const later = (timers: Map<string, NodeJS.Timeout>, kind: Kind, projectId: string, ms: number, job: () => Promise<unknown>) => {
    if (stopped || timers.has(projectId)) return;
    const t = setTimeout(() => {
      timers.delete(projectId);
      run(projectId, kind, job);
    }, ms);
    t.unref();
    timers.set(projectId, t);
  };
  // Starts another process still holds are looked at again until they have begun or been swept.
  const sweepSoon = (projectId: string) =>
    later(sweeps, 'sweep', projectId, SWEEP_DELAY_MS, async () => {
      if ((await admission.sweepProject(projectId)).pending > 0) sweepSoon(projectId);
    });
  const onNotice = (payload: string) => {
    let n: { project?: string; status?: string };
    try {
      n = JSON.parse(payload) as typeof n;
    } catch {
      return;
    }
    if (n.status !== 'queued' || !n.project) return;
    later(dispatches, 'dispatch', n.project, WATCH_DISPATCH_DELAY_MS, () => admission.dispatch(n.project!));
    sweepSoon(n.project);
  };
  const unlisten = await database.listen(TASK_EVENTS_CHANNEL, onNotice);
  return async () => {
    stopped = true;
    for (const t of [...sweeps.values(), ...dispatches.values()]) clearTimeout(t);
    await unlisten();
  };
}
