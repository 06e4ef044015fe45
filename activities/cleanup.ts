// Expired files: deleted from the store, the task marked `expired` (CONTRACT §4).
import type { Activities } from '../model/activities.js';
import { keys } from '../domain/staging/keys.js';
import { dueForExpiry, markExpired } from '../domain/tasks/status.js';
import type { ActivityDeps } from './deps.js';

export function createCleanupActivities({ db, storage }: ActivityDeps): Pick<Activities, 'expireFiles'> {
  return {
    async expireFiles({ batch }) {
      const due = await dueForExpiry(db, batch);
      for (const id of due) {
        // Marked first: a link served between the two steps then answers 410, not a broken stream.
        await markExpired(db, id);
        await storage.deletePrefix(keys.files(id));
      }
      return { expired: due.length };
    },
  };
}
