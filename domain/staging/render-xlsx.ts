// Excel: each sheet's staged .ndjson pieces, in page order, streamed into one workbook (or several
// parts and a zip), the sheets one after another. A retried attempt renders again from the staged
// pages; nothing of a failed one is kept.
import type { RenderedFile } from '../../model/activities.js';
import { DomainError } from '../errors.js';
import { pageCount } from '../../model/plan.js';
import type { Storage } from '../../platform/storage/index.js';
import { sheetCharts } from '../formats/charts.js';
import { areaOf, templateOf } from '../formats/excel-layout.js';
import { resolveSplit } from '../formats/split.js';
import { buildLayout } from '../formats/template/layout.js';
import { type SheetInput, writeSheets } from '../formats/xlsx/workbook.js';
import { readMeta, type SourceMeta } from './meta.js';
import { storeParts } from './outputs.js';
import { orderedPieces } from './pieces.js';
import type { RenderDeps, RenderJob } from './render-csv.js';
import { sheetLabel, taskSheets } from './sheets.js';
import { tempPath } from './tmp.js';

/**
 * The staged rows, a page's worth at a time, each row parsed only when the writer reaches it. A
 * page parsed whole lives across many young-generation collections, so all its rows are promoted
 * and grow the old generation between full collections; parsed one at a time, a row dies young.
 * Memory holds one piece's bytes.
 */
async function* stagedPages(storage: Storage, taskId: string, sheet: number, meta: SourceMeta, signal: AbortSignal): AsyncGenerator<Iterable<unknown>> {
  for (const piece of await orderedPieces(storage, taskId, pageCount(meta.total, meta.pageSize), sheet)) {
    if (signal.aborted) throw signal.reason;
    yield* piecePages(await storage.getBuffer(piece.key), meta.pageSize, piece.key);
  }
}

/** One piece's JSON lines as pages of `pageSize` rows (the last one shorter), each parsed as it is read. */
export function* piecePages(bytes: Buffer, pageSize: number, key: string): Generator<Iterable<unknown>> {
  for (let at = 0; ; ) {
    const end = pageEnd(bytes, at, pageSize);
    if (end === null) return;
    yield rowsIn(bytes, at, end, key);
    at = end;
  }
}

/** Where the page starting at `from` ends: after `pageSize` non-empty lines or at the end; null when none is left. */
function pageEnd(bytes: Buffer, from: number, pageSize: number): number | null {
  let lines = 0;
  let at = from;
  while (at < bytes.length && lines < pageSize) {
    const nl = lineEnd(bytes, at);
    if (nl > at) lines++;
    at = nl + 1;
  }
  return lines === 0 ? null : Math.min(at, bytes.length);
}

const lineEnd = (bytes: Buffer, from: number) => {
  const nl = bytes.indexOf(0x0a, from);
  return nl < 0 ? bytes.length : nl;
};

function* rowsIn(bytes: Buffer, from: number, to: number, key: string): Generator<unknown> {
  for (let at = from; at < to; ) {
    const nl = Math.min(lineEnd(bytes, at), to);
    if (nl > at) {
      let row: unknown;
      try {
        row = JSON.parse(bytes.toString('utf8', at, nl));
      } catch {
        throw new DomainError('storage_failed', `staged piece ${key.split('/').pop()} is not valid JSON lines`);
      }
      yield row;
    }
    at = nl + 1;
  }
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v : undefined);

export async function renderXlsx({ storage, dataDir, maxParts }: RenderDeps, { task, settings, onProgress, signal, rowsPerSheet }: RenderJob): Promise<RenderedFile[]> {
  const limits = resolveSplit('excel', task.options, settings, maxParts);
  const sheets: SheetInput[] = [];
  const specs = taskSheets(task);
  for (const [i, spec] of specs.entries()) {
    const meta = await readMeta(storage, task.id, i);
    const layout = buildLayout(templateOf(meta.template), meta.columns);
    sheets.push({
      layout,
      title: text(spec.options.title),
      summary: text(spec.options.summary),
      header: areaOf('header', meta.header, spec.options.header),
      footer: areaOf('footer', meta.footer, spec.options.footer),
      // An empty sheet draws no chart (and may have no columns to name).
      charts: meta.total > 0 ? sheetCharts(spec.options.charts, layout, sheetLabel(specs, i)) : [],
      pages: stagedPages(storage, task.id, i, meta, signal),
      name: spec.name,
      // With row headers the source's total counts groups, not rows.
      rows: layout.rowLevels > 0 ? undefined : meta.total,
      autofilter: task.options.autofilter,
      timeZone: task.options.time_zone,
    });
  }
  const parts = await writeSheets(sheets, {
    maxRows: limits.maxRows,
    maxBytes: limits.maxBytes,
    maxParts: limits.maxParts,
    pathFor: (n) => tempPath(dataDir, task.id, `part-${n}.xlsx`),
    mtime: task.createdAt,
    onPage: onProgress,
    rowsPerSheet,
  });
  return storeParts({ storage, dataDir, taskId: task.id, fileName: task.fileName, ext: 'xlsx', parts, mtime: task.createdAt });
}
