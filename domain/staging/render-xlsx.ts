// Excel: each sheet's staged .ndjson pieces, in page order, streamed into one workbook (or several
// parts and a zip), the sheets one after another. A retried attempt renders again from the staged
// pages; nothing of a failed one is kept.
import type { RenderedFile } from '../../model/activities.js';
import { permanent } from '../../model/errors.js';
import { pageCount } from '../../model/plan.js';
import type { Storage } from '../../platform/storage/index.js';
import { areaOf, templateOf } from '../formats/excel-layout.js';
import { resolveSplit } from '../formats/split.js';
import { buildLayout } from '../formats/template/layout.js';
import { type SheetInput, writeSheets } from '../formats/xlsx/workbook.js';
import { readMeta, type SourceMeta } from './meta.js';
import { storeParts } from './outputs.js';
import { orderedPieces } from './pieces.js';
import type { RenderDeps, RenderJob } from './render-csv.js';
import { taskSheets } from './sheets.js';
import { tempPath } from './tmp.js';

/** The staged rows, a page's worth at a time: memory holds one piece's lines and one page of rows. */
async function* stagedPages(storage: Storage, taskId: string, sheet: number, meta: SourceMeta, signal: AbortSignal): AsyncGenerator<unknown[]> {
  for (const piece of await orderedPieces(storage, taskId, pageCount(meta.total, meta.pageSize), sheet)) {
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

export async function renderXlsx({ storage, dataDir }: RenderDeps, { task, settings, onProgress, signal, rowsPerSheet }: RenderJob): Promise<RenderedFile[]> {
  const limits = resolveSplit('excel', task.options, settings);
  const sheets: SheetInput[] = [];
  for (const [i, spec] of taskSheets(task).entries()) {
    const meta = await readMeta(storage, task.id, i);
    const layout = buildLayout(templateOf(meta.template), meta.columns);
    sheets.push({
      layout,
      title: text(spec.options.title),
      summary: text(spec.options.summary),
      header: areaOf('header', meta.header, spec.options.header),
      footer: areaOf('footer', meta.footer, spec.options.footer),
      pages: stagedPages(storage, task.id, i, meta, signal),
      name: spec.name,
      // With row headers the source's total counts groups, not rows.
      rows: layout.rowLevels > 0 ? undefined : meta.total,
    });
  }
  const parts = await writeSheets(sheets, {
    maxRows: limits.maxRows,
    maxBytes: limits.maxBytes,
    pathFor: (n) => tempPath(dataDir, task.id, `part-${n}.xlsx`),
    mtime: task.createdAt,
    onPage: onProgress,
    rowsPerSheet,
  });
  return storeParts({ storage, dataDir, taskId: task.id, fileName: task.fileName, ext: 'xlsx', parts, mtime: task.createdAt });
}
