// Rendered parts → outputs: one file keeps its plain name; several become <name>-part-N.<ext>
// plus <name>.zip holding them all, each listed with its rows, bytes and sha256.
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { Meter } from '../formats/meter.js';
import type { Storage } from '../../platform/storage/index.js';
import type { RenderedFile } from '../../model/activities.js';
import type { WrittenPart } from '../formats/part.js';
import { keys } from './keys.js';
import { tempPath } from './tmp.js';

export const partName = (base: string, ext: string, n: number, of: number) => (of === 1 ? `${base}.${ext}` : `${base}-part-${n}.${ext}`);
/** Where a part is stored: its number, not its name (docs name the download; paths stay short). */
const storedName = (ext: string, n: number) => `${n}.${ext}`;

/**
 * Zips local files (compressed ones are stored, plain text is deflated), streaming. Each part is
 * opened only when yazl reaches it and closed before the next: a task of many parts holds one
 * read descriptor at a time, not one per part (which ran out of descriptors and, its 'error'
 * unheard, ended the process). Any stream's error (a part gone, a full disk) ends the pipeline,
 * so it rejects here rather than surfacing as an unhandled 'error' event.
 */
async function zipFiles(entries: { path: string; name: string }[], out: string, compress: boolean, mtime: Date): Promise<{ bytes: number; sha256: string }> {
  const zip = new yazl.ZipFile();
  const meter = new Meter();
  const output = zip.outputStream as Readable;
  let reading: ReadStream | null = null;
  const fail = (err: Error) => {
    reading?.destroy();
    output.destroy(err);
  };
  // yazl reports a part it could not read as its own 'error' event, beside the streams.
  zip.on('error', fail);
  const done = pipeline(output, meter, createWriteStream(out));
  // A failure downstream (the zip's own file) stops the part being read too: no descriptor is left open.
  done.catch(() => reading?.destroy());
  for (const e of entries) {
    zip.addReadStreamLazy(e.name, { mtime, compress }, (cb) => {
      reading = createReadStream(e.path);
      reading.on('error', fail);
      cb(null, reading);
    });
  }
  zip.end();
  await done;
  return { bytes: meter.bytes, sha256: meter.digest() };
}

export interface StorePartsInput {
  storage: Storage;
  dataDir: string;
  taskId: string;
  fileName: string;
  /** The parts' extension: xlsx, parquet, csv, tsv, jsonl, csv.gz, tsv.zst, jsonl.zst, … */
  ext: string;
  parts: WrittenPart[];
  mtime: Date;
}

/** Moves the parts (and, when split, their zip) into the task's staging outputs. */
export async function storeParts({ storage, dataDir, taskId, fileName, ext, parts, mtime }: StorePartsInput): Promise<RenderedFile[]> {
  const named = parts.map((p, i) => ({ ...p, name: partName(fileName, ext, i + 1, parts.length), stored: storedName(ext, i + 1) }));
  const outputs: RenderedFile[] = [];
  const zipPath = named.length > 1 ? tempPath(dataDir, taskId, 'all.zip') : null;
  try {
    if (zipPath) {
      const name = `${fileName}.zip`;
      const z = await zipFiles(named, zipPath, ext === 'csv' || ext === 'tsv' || ext === 'jsonl', mtime);
      named.push({ path: zipPath, name, stored: 'all.zip', rows: parts.reduce((s, p) => s + p.rows, 0), ...z });
    }
    for (const p of named) {
      const key = keys.output(taskId, p.stored);
      await storage.putFile(key, p.path);
      outputs.push({ name: p.name, key, bytes: p.bytes, rows: p.rows, sha256: p.sha256 });
    }
    return outputs;
  } finally {
    // putFile moves local files; whatever was not moved (a failure) is removed here.
    // A zip that failed half-way is not among them.
    await Promise.all([...named.map((p) => p.path), ...(zipPath ? [zipPath] : [])].map((p) => rm(p, { force: true })));
  }
}
