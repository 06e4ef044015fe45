// The outside readers of the dialect, autofilter and time_zone tests (dialect-readers.py): Python's
// csv module with a file's delimiter, openpyxl for workbooks, zoneinfo for wall-clock times.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pyreadersDir } from './pyreaders.js';

export type ReadJob =
  | { id: string; kind: 'csv'; path: string; delimiter: string }
  | { id: string; kind: 'xlsx'; path: string }
  | { id: string; kind: 'zone'; zone: string; texts: string[] };

export interface CsvRead {
  bom: boolean;
  rows: string[][];
  /** The line breaks that end its records (outside quoted fields), each once. */
  line_endings: string[];
}

export interface SheetRead {
  name: string;
  /** openpyxl's ws.auto_filter.ref. */
  filter: string | null;
  /** Cells as openpyxl reads them; a date-time as `yyyy-mm-dd hh:mm:ss`. */
  rows: unknown[][];
}

/** Every job's result by its id: CsvRead, SheetRead[] or (zone) the wall-clock texts. */
export function readDialects(jobs: ReadJob[]): Promise<Record<string, unknown>> {
  if (!existsSync(join(pyreadersDir, 'openpyxl'))) throw new Error('openpyxl is missing from .tools/pyreaders: run `node scripts/test-tools.mjs`');
  return new Promise((resolve, reject) => {
    const child = execFile('python3', [join(import.meta.dirname, 'dialect-readers.py')], { env: { ...process.env, PYTHONPATH: pyreadersDir }, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`dialect-readers.py: ${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as Record<string, unknown>),
    );
    child.stdin!.end(JSON.stringify(jobs));
  });
}
