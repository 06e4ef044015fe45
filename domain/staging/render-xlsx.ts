// Excel: the staged .ndjson pieces, in page order, streamed into one workbook (or several parts and
// a zip). A retried attempt renders again from the staged pages; nothing of a failed one is kept.
import type { RenderedFile } from '../../model/activities.js';
import { permanent } from '../../model/errors.js';
import { pageCount } from '../../model/plan.js';
import type { Storage } from '../../platform/storage/index.js';
import { areaOf, templateOf } from '../formats/excel-layout.js';
import { resolveSplit } from '../formats/split.js';
import { buildLayout } from '../formats/template/layout.js';
import { sheetName, writeWorkbook } from '../formats/xlsx/workbook.js';
import { readMeta, type SourceMeta } from './meta.js';
import { storeParts } from './outputs.js';
import { orderedPieces } from './pieces.js';
import type { RenderDeps, RenderJob } from './render-csv.js';
import { tempPath } from './tmp.js';

/** The staged rows, a page's worth at a time: memory holds one piece's lines and one page of rows. */
async function* stagedPages(storage: Storage, taskId: string, meta: SourceMeta, signal: AbortSignal): AsyncGenerator<unknown[]> {
  for (const piece of await orderedPieces(storage, taskId, pageCount(meta.total, meta.pageSize))) {
    if (signal.aborted) throw signal.reason;
    const lines = (await storage.getBuffer(piece.key)).toString('utf8').split('\n');
    let rows: unknown[] = [];
    for (const line of lines) {
      if (!line) continue;
      try {
        rows.push(JSON.parse(line));
      } catch {
        throw permanent('render_failed', `staged piece ${piece.key.split('/').pop()} is not valid JSON lines`);
      }
      if (rows.length === meta.pageSize) {
        yield rows;
        rows = [];
      }
    }
    if (rows.length > 0) yield rows;
  }
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);

export async function renderXlsx({ storage, dataDir }: RenderDeps, { task, settings, onProgress, signal }: RenderJob): Promise<RenderedFile[]> {
  const meta = await readMeta(storage, task.id);
  const limits = resolveSplit('excel', task.options, settings);
  const title = text(task.options.title);
  const parts = await writeWorkbook({
    layout: buildLayout(templateOf(meta.template), meta.columns),
    title,
    summary: text(task.options.summary),
    header: areaOf('header', meta.header, task.options.header),
    footer: areaOf('footer', meta.footer, task.options.footer),
    pages: stagedPages(storage, task.id, meta, signal),
    maxRows: limits.maxRows,
    maxBytes: limits.maxBytes,
    pathFor: (n) => tempPath(dataDir, task.id, `part-${n}.xlsx`),
    mtime: task.createdAt,
    sheetName: sheetName(title),
    onPage: onProgress,
  });
  return storeParts({ storage, dataDir, taskId: task.id, fileName: task.fileName, ext: 'xlsx', parts, mtime: task.createdAt });
}
