// Parquet: the staged rows (JSON lines, as the source sent them) become typed columns
// (domain/formats/parquet/), read twice: a first pass takes the column types from the template or
// from every row (docs/adr/0032-jsonl-parquet-compression.md, amended 2026-11-27), the second writes the file.
// Both read each line's bytes in place (docs/adr/0050-parquet-writer.md), parsing only a line they cannot.
import { isUtf8 } from 'node:buffer';
import type { RenderedFile } from '../../model/activities.js';
import { pageCount, rowsInPages } from '../../model/plan.js';
import { DomainError } from '../errors.js';
import { ParquetParts } from '../formats/parquet/parts.js';
import { LineScanner } from '../formats/parquet/scan.js';
import { TypePass, uniqueKeys } from '../formats/parquet/types.js';
import type { Storage } from '../../platform/storage/index.js';
import { resolveSplit } from '../formats/split.js';
import { readMeta, type SourceMeta } from './meta.js';
import { storeParts } from './outputs.js';
import { orderedPieces, type Piece, readAhead } from './pieces.js';
import type { RenderDeps, RenderJob } from './render-csv.js';
import { tempPath } from './tmp.js';

const asRow = (r: unknown) => (r ?? {}) as Record<string, unknown>;

/** One staged line as JSON.parse reads it: the way of a line the scanner does not read. */
function parsedLine(bytes: Buffer, from: number, to: number, key: string): Record<string, unknown> {
  try {
    return asRow(JSON.parse(bytes.toString('utf8', from, to)));
  } catch {
    throw new DomainError('storage_failed', `staged piece ${key.split('/').pop()} is not valid JSON lines`);
  }
}

/** A staged line: its bytes [from, to) in the piece, the piece's key, its share of the bytes, and whether the piece is valid UTF-8. */
type Line = (bytes: Buffer, from: number, to: number, key: string, size: number, utf8: boolean) => Promise<void> | void;

/**
 * Each staged row in export order, as the bytes of its line, handed to `each` (awaited only when
 * it answers a promise: a row group to flush), and `onPiece` after each piece. A piece holding
 * other than its fetched rows is storage_failed, not render_failed: our staging is at fault, not
 * the source's data (a 500, not a 422, for preview and sync). The next piece is read while this
 * one is worked; a cancel stops between pieces.
 */
async function eachStagedLine(storage: Storage, chain: Piece[], meta: SourceMeta, signal: AbortSignal, each: Line, onPiece: (piece: Piece) => void): Promise<void> {
  for await (const { piece, bytes } of readAhead(storage, chain, signal)) {
    const expected = rowsInPages(piece.from, piece.to, meta.total, meta.pageSize);
    // The rows' share of the piece's bytes: what bounds a row group's memory.
    const size = bytes.length / Math.max(1, expected);
    // Text is copied from the bytes as they are only where they are UTF-8 (JSON.parse would mend them).
    const utf8 = isUtf8(bytes);
    let rows = 0;
    for (let at = 0; at < bytes.length; ) {
      const nl = bytes.indexOf(0x0a, at);
      const end = nl < 0 ? bytes.length : nl;
      if (end > at) {
        rows++;
        const flushing = each(bytes, at, end, piece.key, size, utf8);
        if (flushing) await flushing;
      }
      at = end + 1;
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
  // Each line is read in place by the scanner (scan.ts); one it cannot read is parsed.
  const scanner = new LineScanner(uniqueKeys(meta.columns));
  const pass = new TypePass(meta.columns);
  const typeLine: Line = (b, from, to, key, _size, utf8) => {
    if (!utf8 || !pass.addLine(scanner, b, from, to)) pass.add(parsedLine(b, from, to, key));
  };
  await eachStagedLine(storage, chain, meta, signal, typeLine, progress);
  // Second pass: the rows written, a row group at a time.
  const parts = new ParquetParts(meta.columns, pass.kinds(), resolveSplit(task.type, task.options, settings, maxParts), (n) => tempPath(dataDir, task.id, `part-${n}.parquet`));
  const writeLine: Line = (b, from, to, key, size, utf8) => {
    const full = (utf8 ? parts.addLine(scanner, b, from, to, size) : null) ?? parts.add(parsedLine(b, from, to, key), size);
    return full ? parts.flushGroup() : undefined;
  };
  try {
    await eachStagedLine(storage, chain, meta, signal, writeLine, progress);
    const local = await parts.finish();
    if (signal.aborted) throw signal.reason;
    return await storeParts({ storage, dataDir, taskId: task.id, fileName: task.fileName, ext: 'parquet', parts: local, mtime: task.createdAt });
  } catch (err) {
    await parts.discard();
    throw err;
  }
}
