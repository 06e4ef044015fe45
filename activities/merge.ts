// The merge step: every lane stored its pages in pieces keyed by page range under one prefix, so
// the global row order is the chain of pieces from page 0. verifyStaged proves it is complete.
import { requireTask } from '../db/tasks.js';
import type { Storage } from '../lib/storage/index.js';
import { type ActivityDeps } from './deps.js';
import { permanent } from './errors.js';
import { listPieces, type Piece, pieceChain } from './pieces.js';

/** The staged pieces in page order, covering every page once; storage_failed when pages are missing. */
export async function orderedPieces(storage: Storage, taskId: string, pages: number): Promise<Piece[]> {
  const pieces = await listPieces(storage, taskId);
  const chain = pieceChain(pieces, pages);
  if (!chain) {
    const present = new Set(pieces.flatMap((p) => Array.from({ length: Math.min(p.to, pages) - p.from }, (_, i) => p.from + i))).size;
    throw permanent('storage_failed', `staged data is incomplete: ${present} of ${pages} pages present`);
  }
  return chain;
}

export function createMergeActivities({ db, storage }: ActivityDeps) {
  return {
    async verifyStaged({ taskId }: { taskId: string }): Promise<{ pages: number }> {
      const task = await requireTask(db, taskId);
      await orderedPieces(storage, taskId, task.pagesTotal ?? 0);
      return { pages: task.pagesTotal ?? 0 };
    },
  };
}
