// CSV: RFC 4180 (CRLF, quotes doubled), UTF-8 with a BOM by default so Excel shows Chinese text.
// Pages are encoded to CSV fragments as they are fetched; rendering is then a concatenation of the
// staged pieces.
import { Context } from '@temporalio/activity';
import { eq } from 'drizzle-orm';
import { projects } from '../db/schema.js';
import { requireTask } from '../db/tasks.js';
import { pageCount, rowsInPages } from '../lib/plan.js';
import { resolveSplit } from '../lib/split.js';
import { type ActivityDeps, keys, type SourceMeta } from './deps.js';
import { encodeCsvHead } from './csv-encode.js';
import { CsvParts } from './csv-parts.js';
import { orderedPieces } from './merge.js';
import { storeParts } from './parts.js';
import { tempPath } from './tmp.js';

export interface RenderedFile {
  name: string;
  key: string;
  bytes: number;
  rows: number;
  sha256: string;
}

export function createRenderCsvActivities({ db, storage, config }: ActivityDeps) {
  return {
    /** Concatenates the staged fragments; over the size limit, parts plus a zip (activities/csv-parts.ts). */
    async renderCsv({ taskId }: { taskId: string }): Promise<{ outputs: RenderedFile[] }> {
      const ctx = Context.current();
      const task = await requireTask(db, taskId);
      const meta = JSON.parse((await storage.getBuffer(keys.meta(taskId))).toString('utf8')) as SourceMeta;
      const [project] = await db.select({ settings: projects.settings }).from(projects).where(eq(projects.id, task.projectId));
      const head = encodeCsvHead(meta.columns, task.options.csv_bom !== false);
      const parts = new CsvParts(head, resolveSplit('csv', task.options, project?.settings ?? {}), (n) => tempPath(config.DATA_DIR, taskId, `part-${n}.csv`));
      try {
        for (const piece of await orderedPieces(storage, taskId, pageCount(meta.total, meta.pageSize))) {
          await parts.page(await storage.getBuffer(piece.key), rowsInPages(piece.from, piece.to, meta.total, meta.pageSize));
          ctx.heartbeat({ done: piece.to });
        }
        const local = await parts.finish();
        return { outputs: await storeParts({ storage, dataDir: config.DATA_DIR, taskId, fileName: task.fileName, ext: 'csv', parts: local, mtime: task.createdAt }) };
      } catch (err) {
        await parts.discard();
        throw err;
      }
    },
  };
}
