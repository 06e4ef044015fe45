// Scheduled housekeeping: expired files deleted from the store, the task marked `expired`
// (docs/operations.md#retention); admission's sweep of what a crash left waiting.
import type { Activities } from '../model/activities.js';
import { keys } from '../domain/staging/keys.js';
import { sweep } from '../domain/tasks/admission/index.js';
import { dueForExpiry, markExpired } from '../domain/tasks/status.js';
import type { ActivityDeps } from './deps.js';
import { atBoundary } from './failure.js';

export function createCleanupActivities(deps: ActivityDeps): Pick<Activities, 'expireFiles' | 'sweepAdmission'> {
  const { db, storage } = deps;
  return atBoundary({
    async sweepAdmission() {
      return sweep(deps);
    },

    async expireFiles({ batch }) {
      const due = await dueForExpiry(db, batch);
      for (const id of due) {
        // Marked first: a link served between the two steps then answers 410, not a broken stream.
        await markExpired(db, id);
        await storage.deletePrefix(keys.files(id));
      }
      return { expired: due.length };
    },
  });
}
