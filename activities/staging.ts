// The staged data of a run: proved complete after fetching, published once rendered, discarded
// when the run fails or is cancelled.
import type { Activities } from '../model/activities.js';
import { orderedPieces } from '../domain/staging/pieces.js';
import { discard, publish } from '../domain/staging/publish.js';
import { requireTask } from '../domain/tasks/queries.js';
import type { ActivityDeps } from './deps.js';

export function createStagingActivities({ db, storage }: ActivityDeps): Pick<Activities, 'verifyStaged' | 'publishFiles' | 'discardStaged'> {
  return {
    /** Every lane stored its pages in pieces; the merge is the chain of pieces from page 0. */
    async verifyStaged({ taskId }) {
      const pages = (await requireTask(db, taskId)).pagesTotal ?? 0;
      await orderedPieces(storage, taskId, pages);
      return { pages };
    },
    async publishFiles({ taskId, outputs }) {
      return { files: await publish(storage, taskId, outputs) };
    },
    async discardStaged({ taskId, files = false }) {
      await discard(storage, taskId, { files });
      return { ok: true };
    },
  };
}
