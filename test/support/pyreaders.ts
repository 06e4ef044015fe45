// The outside readers (DuckDB, pyarrow and openpyxl, from .tools/pyreaders) on an exported file: what each
// read, column types and rows, every value tagged with its Python type (test/support/pyreaders.py).
// And zstd's decompression by PyPI's zstandard (zstd_frames.py), not by the product's own library.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** scripts/test-tools.mjs installs the readers here; the Python scripts run with it on PYTHONPATH. */
export const pyreadersDir = join(process.cwd(), '.tools', 'pyreaders');
const tools = pyreadersDir;

export type Tagged = [tag: 'none' | 'bool' | 'int' | 'float' | 'datetime' | 'date' | 'json' | 'str', value: unknown];
export interface ReaderView {
  types: Record<string, string>;
  rows: Tagged[][];
}

export async function readOutside(kind: 'parquet' | 'jsonl' | 'csv', path: string): Promise<{ pyarrow: ReaderView; duckdb: ReaderView }> {
  if (!existsSync(join(tools, 'pyarrow'))) throw new Error('DuckDB and pyarrow are missing from .tools/pyreaders: run `node scripts/test-tools.mjs`');
  const { stdout } = await run('python3', [join(import.meta.dirname, 'pyreaders.py'), kind, path], {
    env: { ...process.env, PYTHONPATH: tools },
    maxBuffer: 256 << 20,
  });
  return JSON.parse(stdout) as { pyarrow: ReaderView; duckdb: ReaderView };
}

/** The whole of a .zst file, decompressed; throws on anything `zstd -t` would refuse (a cut frame). */
export function unzstd(path: string): Buffer {
  return execFileSync('python3', [join(import.meta.dirname, 'zstd_frames.py'), path], { env: { ...process.env, PYTHONPATH: tools }, maxBuffer: 256 << 20 });
}

export interface OutsideChart {
  kind: string;
  title: string | null;
  /** The anchor's top-left cell [column, row], 0-based; null on a chart sheet. */
  anchor: [number, number] | null;
  axes: { x_axis?: string; y_axis?: string };
  series: { name: string | null; category: string | null; values: string | null }[];
}
export interface OutsideSheet {
  name: string;
  kind: 'worksheet' | 'chartsheet';
  rows: unknown[][];
  charts: OutsideChart[];
}

/** A workbook as openpyxl reads it: each sheet's values and charts (test/support/xlsx_charts.py). */
export async function readWorkbookOutside(path: string): Promise<OutsideSheet[]> {
  if (!existsSync(join(tools, 'openpyxl'))) throw new Error('openpyxl is missing from .tools/pyreaders: run `node scripts/test-tools.mjs`');
  const { stdout } = await run('python3', [join(import.meta.dirname, 'xlsx_charts.py'), path], { env: { ...process.env, PYTHONPATH: tools }, maxBuffer: 256 << 20 });
  return JSON.parse(stdout) as OutsideSheet[];
}
