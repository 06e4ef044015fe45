// Parquet: the staged pieces become typed columns (domain/formats/parquet/). The column types come
// from the template or from every row (docs/adr/0032-jsonl-parquet-compression.md, amended
// 2026-11-27); the rows are typed and written in one pass under the types of the first piece, and
// written again only when a later row changes a type (docs/adr/0050-parquet-writer.md). A piece of
// staged values (docs/adr/0056-parquet-export-pipeline.md) gives its kinds by its headers and its
// rows by their tags, and the row groups its lane encoded are written as they are where the file's
// types are theirs: then the render only stitches (1M rows: 0.95 CPU s before, 0.06-0.25 after).
// A piece of JSON lines (staged before) is read line by line, by the scanner or parsed.
import { isUtf8 } from 'node:buffer';
import type { RenderedFile } from '../../model/activities.js';
import { pageCount, rowsInPages } from '../../model/plan.js';
import { DomainError } from '../errors.js';
import { ParquetParts } from '../formats/parquet/parts.js';
import { LineScanner, type ScannedRow } from '../formats/parquet/scan.js';
import { stagedKeys, StagedValuesError, ValuesReader } from '../formats/parquet/staged.js';
import type { EncodedGroups } from '../formats/parquet/encode.js';
import { PREFIX_BYTES, readGroups, taken, valuesOf } from '../formats/parquet/groups.js';
import { type Kind, sameKinds, TypePass, uniqueKeys } from '../formats/parquet/types.js';
import type { Storage } from '../../platform/storage/index.js';
import { resolveSplit } from '../formats/split.js';
import { readMeta, type SourceMeta } from './meta.js';
import { storeParts } from './outputs.js';
import { orderedPieces, type Piece, readAheadPrefixes } from './pieces.js';
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

/**
 * A staged row: read in place (`scanned`: a staged line the scanner read, or a row of staged
 * values) in `bytes`, or parsed (`row`, a line the scanner does not read); with its share of the
 * piece's bytes (what bounds a row group's memory).
 */
type Each = (scanned: ScannedRow | null, row: Record<string, unknown> | null, bytes: Buffer, size: number, fromValues: boolean) => Promise<void> | void;

/**
 * Each staged row in export order, handed to `each` (awaited only when it answers a promise: a row
 * group to flush), and `onPiece` after each piece. A piece of staged values (`.pqv`, ADR 0056) is
 * read by its tags, and `onPiece` told the kinds of value its columns hold (its headers' bits, in
 * the order of stagedKeys); one of JSON lines (`.ndjson`, staged before) line by line, by the scanner where
 * it can read the line, else parsed. A piece holding other than its fetched rows is storage_failed,
 * not render_failed: our staging is at fault, not the source's data (a 500, not a 422, for preview
 * and sync). The next piece is read while this one is worked; a cancel stops between pieces.
 */
async function eachStagedRow(storage: Storage, chain: Piece[], meta: SourceMeta, signal: AbortSignal, each: Each, onPiece: (piece: Piece, bits: Uint8Array | null) => void, onGroups: OnGroups): Promise<void> {
  const scanner = new LineScanner(uniqueKeys(meta.columns));
  const values = new ValuesReader(stagedKeys(meta.columns).length);
  const prefix = (piece: Piece) => (piece.key.endsWith('.pqv') ? PREFIX_BYTES : null);
  for await (const read of readAheadPrefixes(storage, chain, signal, prefix)) {
    const { piece } = read;
    let { bytes } = read;
    const expected = rowsInPages(piece.from, piece.to, meta.total, meta.pageSize);
    let rows = 0;
    const name = () => piece.key.split('/').pop();
    let bits: Uint8Array | null = null;
    if (piece.key.endsWith('.pqv')) {
      const broken = () => new DomainError('storage_failed', `staged piece ${name()} is not valid staged values`);
      // The piece's first bytes: its row groups, when the lane encoded them; the rest is read only
      // when its values are (the groups not taken, or a piece of values alone).
      const whole = async () => (read.whole ? bytes : (bytes = await storage.getBuffer(piece.key)));
      let found = readGroups(bytes);
      if (found === 'more') found = readGroups(await whole());
      if (found === null || found === 'more') throw broken();
      if (found !== 'values' && found.groups.rows === expected && expected >= taken.minRows && (await onGroups(found.groups))) {
        rows = expected;
        bits = found.bits;
      } else {
        const staged = valuesOf(await whole());
        if (!staged) throw broken();
        // The rows' share of the piece's bytes: what bounds a row group's memory.
        const size = staged.length / Math.max(1, expected);
        try {
          for (values.open(staged); values.next(); rows++) {
            const flushing = each(values, null, staged, size, true);
            if (flushing) await flushing;
          }
        } catch (err) {
          throw err instanceof StagedValuesError ? broken() : err;
        }
        bits = values.bits;
      }
    } else {
      const size = bytes.length / Math.max(1, expected);
      // Text is copied from the bytes as they are only where they are UTF-8 (JSON.parse would mend them).
      const utf8 = isUtf8(bytes);
      for (let at = 0; at < bytes.length; ) {
        const nl = bytes.indexOf(0x0a, at);
        const end = nl < 0 ? bytes.length : nl;
        if (end > at) {
          rows++;
          const scanned = utf8 && scanner.scan(bytes, at, end);
          const flushing = each(scanned ? scanner : null, scanned ? null : parsedLine(bytes, at, end, piece.key), bytes, size, false);
          if (flushing) await flushing;
        }
        at = end + 1;
      }
    }
    if (rows !== expected) throw new DomainError('storage_failed', `staged piece ${name()} holds ${rows} rows where ${expected} were fetched`);
    onPiece(piece, bits);
  }
}

/**
 * A piece's row groups, encoded by the lane that staged it (groups.ts): true when they are taken
 * as they are (and its rows need not be read), false when its rows are to be read instead.
 */
type OnGroups = (groups: EncodedGroups) => Promise<boolean> | boolean;

/**
 * A row to the type pass: a row of staged values has only its template-typed columns checked (the
 * others' kinds come from the piece's headers, `typed` below); any other row every column.
 */
const typeRow = (pass: TypePass, scanned: ScannedRow | null, row: Record<string, unknown> | null, fromValues: boolean) => {
  if (scanned) pass.addScanned(scanned, !fromValues);
  else pass.add(row!);
};

/** A piece's kinds, as its staged values' headers tell them, to the type pass. */
const typed = (pass: TypePass) => (_piece: Piece, bits: Uint8Array | null) => {
  if (bits) pass.addBits(bits);
};

/** A task's type pass and writer fed a row at a time. */
const feeds = {
  types:
    (pass: TypePass): Each =>
    (scanned, row, _b, _size, fromValues) =>
      typeRow(pass, scanned, row, fromValues),
  writer:
    (parts: ParquetParts): Each =>
    (scanned, row, b, size) => {
      const full = scanned ? parts.addScanned(scanned, b, size) : parts.add(row!, size);
      return full ? parts.flushGroup() : undefined;
    },
};

export async function renderParquet({ storage, dataDir, maxParts }: RenderDeps, { task, settings, onProgress, signal }: RenderJob): Promise<RenderedFile[]> {
  const meta = await readMeta(storage, task.id);
  const chain = await orderedPieces(storage, task.id, pageCount(meta.total, meta.pageSize));
  const progress = (piece: Piece) => onProgress(piece.to);
  const newParts = (kinds: Kind[]) => new ParquetParts(meta.columns, kinds, resolveSplit(task.type, task.options, settings, maxParts), (n) => tempPath(dataDir, task.id, `part-${n}.parquet`));
  // The types of the first piece's rows: a guess most exports keep to their last row.
  const first = new TypePass(meta.columns);
  await eachStagedRow(storage, chain.slice(0, 1), meta, signal, feeds.types(first), typed(first), (groups) => (first.skipRows(groups.rows), true));
  const guessed = first.kinds();
  // One pass: every row typed (and each template-typed value checked: a misfit fails the task
  // here, before the writer sees its row) and written under the guessed types at once.
  const pass = new TypePass(meta.columns);
  let parts: ParquetParts | null = newParts(guessed);
  try {
    // Each row read once (by its tags, scanned, or parsed when the scanner cannot read it) for both
    // the type check and the writer.
    const both: Each = (scanned, row, b, size, fromValues) => {
      typeRow(pass, scanned, row, fromValues);
      if (!parts) return;
      try {
        return (scanned ? parts.addScanned(scanned, b, size) : parts.add(row!, size)) ? parts.flushGroup() : undefined;
      } catch (err) {
        // A value the guessed type cannot hold: the guess is wrong; the types pass goes on alone.
        if (!(err instanceof DomainError && err.code === 'render_failed')) throw err;
        const wrong = parts;
        parts = null;
        return wrong.discard();
      }
    };
    // A piece's groups encoded by its lane under the file's kinds are written as they are: they
    // hold no misfit of a template type (the lane made none where a value did not fit), so the type
    // pass needs only their kinds, which the values' headers give.
    const groups: OnGroups = async (g) => {
      if (parts && !(await parts.addEncoded(g))) return false;
      pass.skipRows(g.rows);
      return true;
    };
    await eachStagedRow(
      storage,
      chain,
      meta,
      signal,
      both,
      (piece, bits) => {
        typed(pass)(piece, bits);
        progress(piece);
      },
      groups,
    );
    // The guess held to the last row: the file is written. Else the rows are written again,
    // under the types of every row (the guessed file, if any, is dropped first).
    if (!parts || !sameKinds(pass.kinds(), guessed)) {
      await parts?.discard();
      parts = newParts(pass.kinds());
      const again = parts;
      await eachStagedRow(storage, chain, meta, signal, feeds.writer(again), progress, (g) => again.addEncoded(g));
    }
    const local = await parts.finish();
    if (signal.aborted) throw signal.reason;
    return await storeParts({ storage, dataDir, taskId: task.id, fileName: task.fileName, ext: 'parquet', parts: local, mtime: task.createdAt });
  } catch (err) {
    await parts?.discard();
    throw err;
  }
}
