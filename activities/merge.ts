// The merge step: every lane wrote its pages under one prefix keyed by global page number, so
// the global row order is the key order. verifyStaged proves the set is complete before render.
import { requireTask } from '../db/tasks.js';
import type { Storage } from '../lib/storage/index.js';
import { type ActivityDeps, keys } from './deps.js';
import { permanent } from './errors.js';

export async function orderedPageKeys(storage: Storage, taskId: string): Promise<string[]> {
  return (await storage.list(keys.pages(taskId))).filter((k) => !k.endsWith('.part'));
}

export function createMergeActivities({ db, storage }: ActivityDeps) {
  return {
    async verifyStaged({ taskId }: { taskId: string }): Promise<{ pages: number }> {
      const task = await requireTask(db, taskId);
      const want = task.pagesTotal ?? 0;
      const found = await orderedPageKeys(storage, taskId);
      const numbers = found.map((k) => Number(/(\d+)\.\w+$/.exec(k)?.[1] ?? -1));
      const contiguous = numbers.every((n, i) => n === i);
      if (found.length !== want || !contiguous) {
        throw permanent('storage_failed', `staged data is incomplete: ${found.length} of ${want} pages present`);
      }
      return { pages: found.length };
    },
  };
}
