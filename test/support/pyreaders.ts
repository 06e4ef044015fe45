// The outside readers (DuckDB and pyarrow, from .tools/pyreaders) on an exported file: what each
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
