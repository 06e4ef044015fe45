// The staged data of a run: proved complete after fetching, published once rendered, discarded
// when the run fails or is cancelled.
import type { Activities } from '../model/activities.js';
import { readMeta } from '../domain/staging/meta.js';
import { gaps, listPieces, orderedPieces } from '../domain/staging/pieces.js';
import { discard, publish } from '../domain/staging/publish.js';
import { requireTask } from '../domain/tasks/queries.js';
import { setLaneProgress } from '../domain/tasks/status.js';
import { pageCount, rowsInPages } from '../model/plan.js';
import type { ActivityDeps } from './deps.js';

export function createStagingActivities({ db, storage }: ActivityDeps): Pick<Activities, 'verifyStaged' | 'stagedGaps' | 'publishFiles' | 'discardStaged'> {
  return {
    /** Every lane stored its pages in pieces; the merge is the chain of pieces from page 0. */
    async verifyStaged({ taskId }) {
      const pages = (await requireTask(db, taskId)).pagesTotal ?? 0;
      await orderedPieces(storage, taskId, pages);
      return { pages };
    },
    /** What a resumed export still has to fetch; the progress so far shows as one finished lane. */
    async stagedGaps({ taskId }) {
      const meta = await readMeta(storage, taskId);
      const pages = pageCount(meta.total, meta.pageSize);
      const missing = gaps(await listPieces(storage, taskId), pages);
      const missingPages = missing.reduce((n, g) => n + g.to - g.from, 0);
      const missingRows = missing.reduce((n, g) => n + rowsInPages(g.from, g.to, meta.total, meta.pageSize), 0);
      await setLaneProgress(db, taskId, 'staged', { pages: pages - missingPages, rows: meta.total - missingRows });
      return { total: meta.total, pageSize: meta.pageSize, gaps: missing };
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
