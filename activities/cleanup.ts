// Expired files: deleted from the store, the task marked `expired` (CONTRACT §4).
import { and, asc, eq, lt } from 'drizzle-orm';
import { tasks } from '../db/schema.js';
import { type ActivityDeps, keys } from './deps.js';

export function createCleanupActivities({ db, storage }: ActivityDeps) {
  return {
    async expireFiles({ batch }: { batch: number }): Promise<{ expired: number }> {
      const due = await db
        .select({ id: tasks.id })
        .from(tasks)
        .where(and(eq(tasks.status, 'succeeded'), lt(tasks.expiresAt, new Date())))
        .orderBy(asc(tasks.expiresAt))
        .limit(batch);
      for (const { id } of due) {
        // Mark first: a link served between the two steps then answers 410, not a broken stream.
        await db.update(tasks).set({ status: 'expired', updatedAt: new Date() }).where(and(eq(tasks.id, id), eq(tasks.status, 'succeeded')));
        await storage.deletePrefix(keys.files(id));
      }
      return { expired: due.length };
    },
  };
}
