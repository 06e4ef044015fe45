// Parquet: the staged rows (JSON lines, as the source sent them) become typed columns
// (domain/formats/parquet/), read twice: a first pass takes the column types from the template or
// from every row (docs/adr/0032-jsonl-parquet-compression.md, amended 2026-11-27), the second writes the file.
import type { RenderedFile } from '../../model/activities.js';
import { pageCount, rowsInPages } from '../../model/plan.js';
import { DomainError } from '../errors.js';
import { ParquetParts } from '../formats/parquet/parts.js';
import { TypePass } from '../formats/parquet/types.js';
import type { Storage } from '../../platform/storage/index.js';
import { resolveSplit } from '../formats/split.js';
import { readMeta, type SourceMeta } from './meta.js';
import { storeParts } from './outputs.js';
import { orderedPieces, type Piece, readAhead } from './pieces.js';
import type { RenderDeps, RenderJob } from './render-csv.js';
import { piecePages } from './render-xlsx.js';
import { tempPath } from './tmp.js';

const asRow = (r: unknown) => (r ?? {}) as Record<string, unknown>;

/**
 * Each staged row in export order, handed to `each` (awaited only when it answers a promise: a row
 * group to flush), and `onPiece` after each piece. A piece holding other than its fetched rows is
 * storage_failed, not render_failed: our staging is at fault, not the source's data (a 500, not a
 * 422, for preview and sync). The next piece is read while this one is worked; a cancel stops
 * between pieces.
 */
async function eachStagedRow(storage: Storage, chain: Piece[], meta: SourceMeta, signal: AbortSignal, each: (row: Record<string, unknown>, size: number) => Promise<void> | void, onPiece: (piece: Piece) => void): Promise<void> {
  for await (const { piece, bytes } of readAhead(storage, chain, signal)) {
    const expected = rowsInPages(piece.from, piece.to, meta.total, meta.pageSize);
    // The rows' share of the piece's bytes: what bounds a row group's memory.
    const size = bytes.length / Math.max(1, expected);
    let rows = 0;
    // Each row parsed as it is used (render-xlsx.ts says why); a broken line is storage_failed.
    for (const page of piecePages(bytes, meta.pageSize, piece.key)) {
      for (const row of page) {
        rows++;
        const flushing = each(asRow(row), size);
        if (flushing) await flushing;
      }
    }
    if (rows !== expected) throw new DomainError('storage_failed', `staged piece ${piece.key.split('/').pop()} holds ${rows} rows where ${expected} were fetched`);
    onPiece(piece);
  }
}

export async function renderParquet({ storage, dataDir, maxParts }: RenderDeps, { task, settings, onProgress, signal }: RenderJob): Promise<RenderedFile[]> {
  const meta = await readMeta(storage, task.id);
  const chain = await orderedPieces(storage, task.id, pageCount(meta.total, meta.pageSize));
  const progress = (piece: Piece) => onProgress(piece.to);
  // First pass: the column types from every row (and each template-typed value checked) before
  // the file is begun; it holds one piece and one number per column.
  const pass = new TypePass(meta.columns);
  await eachStagedRow(storage, chain, meta, signal, (row) => pass.add(row), progress);
  // Second pass: the rows written, a row group at a time.
  const parts = new ParquetParts(meta.columns, pass.kinds(), resolveSplit(task.type, task.options, settings, maxParts), (n) => tempPath(dataDir, task.id, `part-${n}.parquet`));
  try {
    await eachStagedRow(storage, chain, meta, signal, (row, size) => (parts.add(row, size) ? parts.flushGroup() : undefined), progress);
    const local = await parts.finish();
    if (signal.aborted) throw signal.reason;
    return await storeParts({ storage, dataDir, taskId: task.id, fileName: task.fileName, ext: 'parquet', parts: local, mtime: task.createdAt });
  } catch (err) {
    await parts.discard();
    throw err;
  }
}
