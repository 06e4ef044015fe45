// The staged data of a run: proved complete after fetching, published once rendered, discarded
// when the run fails or is cancelled.
import type { Activities, StagedGaps } from '../model/activities.js';
import { readMeta } from '../domain/staging/meta.js';
import { gaps, listPieces, orderedPieces } from '../domain/staging/pieces.js';
import { discard, publish } from '../domain/staging/publish.js';
import { taskSheets } from '../domain/staging/sheets.js';
import { requireTask } from '../domain/tasks/queries.js';
import { restartProgress } from '../domain/tasks/status.js';
import { pageCount, rowsInPages } from '../model/plan.js';
import type { ActivityDeps } from './deps.js';
import { atBoundary } from './failure.js';

export function createStagingActivities({ db, storage }: ActivityDeps): Pick<Activities, 'verifyStaged' | 'stagedGaps' | 'publishFiles' | 'discardStaged'> {
  return atBoundary({
    /** Every lane stored its pages in pieces; each sheet's merge is the chain of its pieces from page 0. */
    async verifyStaged({ taskId }) {
      const task = await requireTask(db, taskId);
      const sheets = taskSheets(task);
      if (sheets.length === 1) {
        const pages = task.pagesTotal ?? 0;
        await orderedPieces(storage, taskId, pages);
        return { pages };
      }
      let pages = 0;
      for (const i of sheets.keys()) {
        const meta = await readMeta(storage, taskId, i);
        const sheetPages = pageCount(meta.total, meta.pageSize);
        await orderedPieces(storage, taskId, sheetPages, i);
        pages += sheetPages;
      }
      return { pages };
    },
    /** What a resumed export still has to fetch, every sheet's; the progress so far shows as one finished lane. */
    async stagedGaps({ taskId }) {
      const sheets = taskSheets(await requireTask(db, taskId));
      const out: StagedGaps = { total: 0, pageSize: 0, gaps: [] };
      let stagedPages = 0;
      let stagedRows = 0;
      for (const i of sheets.keys()) {
        const meta = await readMeta(storage, taskId, i);
        const pages = pageCount(meta.total, meta.pageSize);
        const missing = gaps(await listPieces(storage, taskId, i), pages);
        stagedPages += pages - missing.reduce((n, g) => n + g.to - g.from, 0);
        stagedRows += meta.total - missing.reduce((n, g) => n + rowsInPages(g.from, g.to, meta.total, meta.pageSize), 0);
        out.total += meta.total;
        out.pageSize = meta.pageSize;
        out.gaps.push(...missing.map((g) => (i === 0 ? g : { ...g, sheet: i })));
      }
      await restartProgress(db, taskId, { pages: stagedPages, rows: stagedRows });
      return out;
    },
    async publishFiles({ taskId, outputs }) {
      return { files: await publish(storage, taskId, outputs) };
    },
    async discardStaged({ taskId, files = false }) {
      await discard(storage, taskId, { files });
      return { ok: true };
    },
  });
}
