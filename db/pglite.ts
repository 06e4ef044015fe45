// The embedded database. PGlite's WASM heap never shrinks, so two things keep the service's resident
// memory down (docs/performance.md, Memory):
// - a small shared_buffers (the default 128 MB is sized for a server, not an embedded demo store);
// - initdb, which peaks at several hundred MB, runs once in a short-lived child process.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';

export const pgliteOptions = { postgresqlconf: ['shared_buffers = 16MB', 'work_mem = 4MB'] };

export async function openPglite(dir: string): Promise<PGlite> {
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'PG_VERSION'))) {
    // From the sources the child needs tsx; the compiled dist/ runs under plain node.
    const fromSources = import.meta.url.endsWith('.ts');
    const script = fileURLToPath(new URL(fromSources ? './pglite-init.ts' : './pglite-init.js', import.meta.url));
    await promisify(execFile)(process.execPath, [...(fromSources ? ['--import', 'tsx'] : []), script, dir]);
  }
  return PGlite.create(dir, pgliteOptions);
}
