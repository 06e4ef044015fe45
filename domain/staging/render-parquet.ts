// Parquet: the staged rows (JSON lines, as the source sent them) become typed columns
// (domain/formats/parquet/). The column types come from the template or from every row
// (docs/adr/0032-jsonl-parquet-compression.md, amended 2026-11-27); the rows are typed and written
// in one pass under the types of the first piece, and written again only when a later row changes
// a type (docs/adr/0050-parquet-writer.md). Each line's bytes are read in place, a line the scanner
// cannot read parsed.
import { isUtf8 } from 'node:buffer';
import type { RenderedFile } from '../../model/activities.js';
import { pageCount, rowsInPages } from '../../model/plan.js';
import { DomainError } from '../errors.js';
import { ParquetParts } from '../formats/parquet/parts.js';
import { LineScanner } from '../formats/parquet/scan.js';
import { type Kind, TypePass, uniqueKeys } from '../formats/parquet/types.js';
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

/** A task's type pass and writer fed a line at a time, each by the scanner where it can read the line. */
function lineFeeds(scanner: LineScanner) {
  return {
    types: (pass: TypePass): Line => (b, from, to, key, _size, utf8) => {
      if (!utf8 || !pass.addLine(scanner, b, from, to)) pass.add(parsedLine(b, from, to, key));
    },
    writer: (parts: ParquetParts): Line => (b, from, to, key, size, utf8) => {
      const full = (utf8 ? parts.addLine(scanner, b, from, to, size) : null) ?? parts.add(parsedLine(b, from, to, key), size);
      return full ? parts.flushGroup() : undefined;
    },
  };
}

const sameKinds = (a: Kind[], b: Kind[]) => a.length === b.length && a.every((k, i) => k === b[i]);

export async function renderParquet({ storage, dataDir, maxParts }: RenderDeps, { task, settings, onProgress, signal }: RenderJob): Promise<RenderedFile[]> {
  const meta = await readMeta(storage, task.id);
  const chain = await orderedPieces(storage, task.id, pageCount(meta.total, meta.pageSize));
  const progress = (piece: Piece) => onProgress(piece.to);
  const scanner = new LineScanner(uniqueKeys(meta.columns));
  const feed = lineFeeds(scanner);
  const newParts = (kinds: Kind[]) => new ParquetParts(meta.columns, kinds, resolveSplit(task.type, task.options, settings, maxParts), (n) => tempPath(dataDir, task.id, `part-${n}.parquet`));
  // The types of the first piece's rows: a guess most exports keep to their last row.
  const first = new TypePass(meta.columns);
  await eachStagedLine(storage, chain.slice(0, 1), meta, signal, feed.types(first), () => {});
  const guessed = first.kinds();
  // One pass: every row typed (and each template-typed value checked: a misfit fails the task
  // here, before the writer sees its row) and written under the guessed types at once.
  const pass = new TypePass(meta.columns);
  let parts: ParquetParts | null = newParts(guessed);
  try {
    // Each line read once (scanned, or parsed when the scanner cannot read it) for both the type
    // check and the writer.
    const both: Line = (b, from, to, key, size, utf8) => {
      const scanned = utf8 && scanner.scan(b, from, to);
      const row = scanned ? null : parsedLine(b, from, to, key);
      if (row) pass.add(row);
      else pass.addScanned(scanner);
      if (!parts) return;
      try {
        return (row ? parts.add(row, size) : parts.addScanned(scanner, b, size)) ? parts.flushGroup() : undefined;
      } catch (err) {
        // A value the guessed type cannot hold: the guess is wrong; the types pass goes on alone.
        if (!(err instanceof DomainError && err.code === 'render_failed')) throw err;
        const wrong = parts;
        parts = null;
        return wrong.discard();
      }
    };
    await eachStagedLine(storage, chain, meta, signal, both, progress);
    // The guess held to the last row: the file is written. Else the rows are written again,
    // under the types of every row (the guessed file, if any, is dropped first).
    if (!parts || !sameKinds(pass.kinds(), guessed)) {
      await parts?.discard();
      parts = newParts(pass.kinds());
      await eachStagedLine(storage, chain, meta, signal, feed.writer(parts), progress);
    }
    const local = await parts.finish();
    if (signal.aborted) throw signal.reason;
    return await storeParts({ storage, dataDir, taskId: task.id, fileName: task.fileName, ext: 'parquet', parts: local, mtime: task.createdAt });
  } catch (err) {
    await parts?.discard();
    throw err;
  }
}
