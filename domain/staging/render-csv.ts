// CSV and JSON Lines. CSV: RFC 4180 (CRLF, quotes doubled) or the task's dialect (a tab-separated
// file is named .tsv), UTF-8 with a BOM by default so Excel shows Chinese text. JSON Lines: domain/formats/jsonl.ts. Pages were encoded to fragments of the
// file as they were fetched; rendering is a concatenation of the staged pieces, split into parts
// (plus a zip) over the size limit, and compressed on the way when the task asks (gzip, zstd).
import type { TaskRow } from '../../db/schema.js';
import type { RenderedFile } from '../../model/activities.js';
import { pageCount, rowsInPages } from '../../model/plan.js';
import type { StoredSettings } from '../../model/project-settings.js';
import type { Storage } from '../../platform/storage/index.js';
import { fileExt, taskCompression } from '../formats/compression.js';
import { csvStyle, encodeCsvHead } from '../formats/csv/encode.js';
import { CsvParts, lineEnds, recordEnds } from '../formats/csv/parts.js';
import { resolveSplit } from '../formats/split.js';
import { readMeta } from './meta.js';
import { storeParts } from './outputs.js';
import { orderedPieces, readAhead } from './pieces.js';
import { tempPath } from './tmp.js';

export interface RenderDeps {
  storage: Storage;
  dataDir: string;
  /** MAX_PARTS: the most parts a task's output may have (unset: no cap). */
  maxParts?: number | undefined;
}

export interface RenderJob {
  task: TaskRow;
  settings: StoredSettings;
  /** Called as the render advances, e.g. to heartbeat. */
  onProgress(done: number): void;
  signal: AbortSignal;
  /** A preview: only the first rows of each sheet are written (the pages read are all staged). */
  rowsPerSheet?: number | undefined;
}

/** A csv or jsonl task's files. */
export async function renderText({ storage, dataDir, maxParts }: RenderDeps, { task, settings, onProgress, signal }: RenderJob): Promise<RenderedFile[]> {
  const meta = await readMeta(storage, task.id);
  const jsonl = task.type === 'jsonl';
  const head = jsonl ? Buffer.alloc(0) : encodeCsvHead(meta.columns, task.options.csv_bom ?? true, csvStyle(task.options));
  const compression = taskCompression(task);
  const ext = fileExt(jsonl ? 'jsonl' : task.options.csv_delimiter === '\t' ? 'tsv' : 'csv', compression);
  const format = { recordEnds: jsonl ? lineEnds : recordEnds, compression };
  const parts = new CsvParts(head, resolveSplit(task.type, task.options, settings, maxParts), (n) => tempPath(dataDir, task.id, `part-${n}.${ext}`), format);
  try {
    const chain = await orderedPieces(storage, task.id, pageCount(meta.total, meta.pageSize));
    // The next piece is read while this one is written and hashed; a cancel stops between pieces.
    for await (const { piece, bytes } of readAhead(storage, chain, signal)) {
      await parts.page(bytes, rowsInPages(piece.from, piece.to, meta.total, meta.pageSize));
      onProgress(piece.to);
    }
    const local = await parts.finish();
    if (signal.aborted) throw signal.reason;
    return await storeParts({ storage, dataDir, taskId: task.id, fileName: task.fileName, ext, parts: local, mtime: task.createdAt });
  } catch (err) {
    await parts.discard();
    throw err;
  }
}
