// Parquet: the staged rows (JSON lines, as the source sent them) become typed columns
// (domain/formats/parquet/), the column types from the template or from the first page.
import type { RenderedFile } from '../../model/activities.js';
import { pageCount, rowsInPages } from '../../model/plan.js';
import { ParquetParts } from '../formats/parquet/parts.js';
import { columnKinds } from '../formats/parquet/types.js';
import { resolveSplit } from '../formats/split.js';
import { readMeta } from './meta.js';
import { storeParts } from './outputs.js';
import { orderedPieces } from './pieces.js';
import type { RenderDeps, RenderJob } from './render-csv.js';
import { tempPath } from './tmp.js';

/**
 * A staged piece's rows, parsed in one call: its lines are JSON.stringify's output, which holds no
 * raw line feed, so the lines joined by commas are one JSON array.
 */
function rowsOf(bytes: Buffer): Record<string, unknown>[] {
  if (bytes.length === 0) return [];
  const text = bytes.toString('utf8', 0, bytes[bytes.length - 1] === 0x0a ? bytes.length - 1 : bytes.length);
  return (JSON.parse(`[${text.replaceAll('\n', ',')}]`) as Array<Record<string, unknown> | null>).map((r) => r ?? {});
}

export async function renderParquet({ storage, dataDir }: RenderDeps, { task, settings, onProgress, signal }: RenderJob): Promise<RenderedFile[]> {
  const meta = await readMeta(storage, task.id);
  const chain = await orderedPieces(storage, task.id, pageCount(meta.total, meta.pageSize));
  let parts: ParquetParts | undefined;
  try {
    let reading = chain[0] && storage.getBuffer(chain[0].key);
    for (const [i, piece] of chain.entries()) {
      const bytes = await reading!;
      reading = chain[i + 1] && storage.getBuffer(chain[i + 1]!.key);
      reading?.catch(() => {}); // awaited on the next turn, or abandoned when this one fails
      // Cancelled: stop now (the catch removes the parts), not after the whole file.
      if (signal.aborted) throw signal.reason;
      const rows = rowsOf(bytes);
      // The rows' share of the piece's bytes: what bounds a row group's memory.
      const size = bytes.length / Math.max(1, rows.length);
      if (rows.length !== rowsInPages(piece.from, piece.to, meta.total, meta.pageSize)) {
        throw new Error(`staged piece ${piece.key} holds ${rows.length} rows`);
      }
      // The first page decides the types of the columns the template does not type.
      parts ??= new ParquetParts(
        meta.columns,
        columnKinds(meta.columns, rows.slice(0, meta.pageSize)),
        resolveSplit(task.type, task.options, settings),
        (n) => tempPath(dataDir, task.id, `part-${n}.parquet`),
      );
      for (const row of rows) if (parts.add(row, size)) await parts.flushGroup();
      onProgress(piece.to);
    }
    parts ??= new ParquetParts(meta.columns, columnKinds(meta.columns, []), resolveSplit(task.type, task.options, settings), (n) => tempPath(dataDir, task.id, `part-${n}.parquet`));
    const local = await parts.finish();
    if (signal.aborted) throw signal.reason;
    return await storeParts({ storage, dataDir, taskId: task.id, fileName: task.fileName, ext: 'parquet', parts: local, mtime: task.createdAt });
  } catch (err) {
    await parts?.discard();
    throw err;
  }
}
