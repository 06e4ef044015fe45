// Parquet: the staged rows (JSON lines, as the source sent them) become typed columns
// (domain/formats/parquet/), the column types from the template or from the first page.
import type { RenderedFile } from '../../model/activities.js';
import { pageCount, rowsInPages } from '../../model/plan.js';
import { DomainError } from '../errors.js';
import { ParquetParts } from '../formats/parquet/parts.js';
import { columnKinds } from '../formats/parquet/types.js';
import { resolveSplit } from '../formats/split.js';
import { readMeta } from './meta.js';
import { storeParts } from './outputs.js';
import { orderedPieces, readAhead } from './pieces.js';
import type { RenderDeps, RenderJob } from './render-csv.js';
import { piecePages } from './render-xlsx.js';
import { tempPath } from './tmp.js';

const asRow = (r: unknown) => (r ?? {}) as Record<string, unknown>;

export async function renderParquet({ storage, dataDir, maxParts }: RenderDeps, { task, settings, onProgress, signal }: RenderJob): Promise<RenderedFile[]> {
  const meta = await readMeta(storage, task.id);
  const chain = await orderedPieces(storage, task.id, pageCount(meta.total, meta.pageSize));
  const partsOf = (firstPage: Record<string, unknown>[]) =>
    new ParquetParts(meta.columns, columnKinds(meta.columns, firstPage), resolveSplit(task.type, task.options, settings, maxParts), (n) => tempPath(dataDir, task.id, `part-${n}.parquet`));
  let parts: ParquetParts | undefined;
  try {
    // The next piece is read while this one is encoded; a cancel stops between pieces.
    for await (const { piece, bytes } of readAhead(storage, chain, signal)) {
      const expected = rowsInPages(piece.from, piece.to, meta.total, meta.pageSize);
      // The rows' share of the piece's bytes: what bounds a row group's memory.
      const size = bytes.length / Math.max(1, expected);
      let rows = 0;
      // Each row parsed as it is added (render-xlsx.ts says why); a broken line is render_failed.
      for (const page of piecePages(bytes, meta.pageSize, piece.key)) {
        // The first page decides the types of the columns the template does not type.
        const read = parts ? page : [...page].map(asRow);
        parts ??= partsOf(read as Record<string, unknown>[]);
        for (const row of read) {
          rows++;
          if (parts.add(asRow(row), size)) await parts.flushGroup();
        }
      }
      if (rows !== expected) throw new DomainError('render_failed', `staged piece ${piece.key.split('/').pop()} holds ${rows} rows where ${expected} were fetched`);
      onProgress(piece.to);
    }
    parts ??= partsOf([]);
    const local = await parts.finish();
    if (signal.aborted) throw signal.reason;
    return await storeParts({ storage, dataDir, taskId: task.id, fileName: task.fileName, ext: 'parquet', parts: local, mtime: task.createdAt });
  } catch (err) {
    await parts?.discard();
    throw err;
  }
}
