// Publishing: rendered outputs move from the task's staging prefix to files/<task_id>/ only once
// all of them exist, so a partial export is never presented as complete.
import type { StoredFile } from '../db/schema.js';
import { type ActivityDeps, keys } from './deps.js';
import { permanent } from './errors.js';
import type { RenderedFile } from './render-csv.js';

export function createUploadActivities({ storage }: ActivityDeps) {
  return {
    async publishFiles({ taskId, outputs }: { taskId: string; outputs: RenderedFile[] }): Promise<{ files: StoredFile[] }> {
      const files: StoredFile[] = [];
      for (const o of outputs) {
        const dest = keys.file(taskId, o.name);
        // A retry after a crash may find the move already done.
        if ((await storage.size(o.key)) !== null) await storage.move(o.key, dest);
        const size = await storage.size(dest);
        if (size !== o.bytes) {
          throw permanent('storage_failed', `stored ${o.name} has ${size ?? 'no'} bytes where ${o.bytes} were written`);
        }
        files.push({ name: o.name, key: dest, bytes: o.bytes, rows: o.rows, sha256: o.sha256 });
      }
      await storage.deletePrefix(keys.staging(taskId));
      return { files };
    },

    /** Compensation for a failed or cancelled run: nothing half-made stays behind. */
    async discardStaged({ taskId, files = false }: { taskId: string; files?: boolean }): Promise<{ ok: true }> {
      await storage.deletePrefix(keys.staging(taskId));
      if (files) await storage.deletePrefix(keys.files(taskId));
      return { ok: true };
    },
  };
}
