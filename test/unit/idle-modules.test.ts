// What an idle `npm start` process must not hold (docs/adr/0055-idle-memory-of-npm-start.md): the
// packages that only a mail, an xlsx file, a Parquet render, or PGlite in the other process needs are loaded
// when first used, not by the modules the API and worker processes import at start.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { projectRoot } from '../../platform/paths.js';

/** The packages and files each module graph below loads, as resolved (ESM) or required (CommonJS). */
async function loadedBy(entries: string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dc-idle-modules-'));
  const list = join(dir, 'loaded.txt');
  try {
    // A resolve hook (it runs on the loader's thread) records every ESM URL; Module._cache holds the
    // CommonJS files, createRequire's included.
    const hook = `import { appendFileSync } from 'node:fs'; export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(list)}, r.url + '\\n'); return r; }`;
    const program = [
      `import { register, createRequire } from 'node:module';`,
      `import { appendFileSync } from 'node:fs';`,
      `register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`,
      ...entries.map((e) => `await import(${JSON.stringify(`./${e}`)});`),
      `appendFileSync(${JSON.stringify(list)}, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n');`,
    ].join('\n');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', TEMPORAL_ADDRESS: '127.0.0.1:1' },
    });
    return readFileSync(list, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const loadsPackage = (loaded: string[], pkg: string) => loaded.some((u) => u.includes(`/node_modules/${pkg}/`));
const loadsFile = (loaded: string[], file: string) => loaded.some((u) => u.includes(`/${file}`));

it('the modules both processes of npm start import at start leave mail parsing and sending, the xlsx and Parquet renderers and PGlite unloaded', async () => {
  // The worker process's graph (app/worker.ts) and the API process's (app/start.ts), without running either.
  const loaded = await loadedBy(['app/runtime.ts', 'app/runtime-worker.ts', 'app/runtime-api.ts', 'app/sync-worker.ts', 'app/embedded-worker.ts', 'platform/mail-catcher.ts', 'activities/index.ts', 'db/client.ts']);
  // Sanity: the graphs were loaded (the hook saw them).
  expect(loadsPackage(loaded, '@temporalio/worker')).toBe(true);
  expect(loadsFile(loaded, 'domain/staging/render.ts')).toBe(true);
  expect(loadsPackage(loaded, 'smtp-server')).toBe(true);
  // (hyparquet's writer is loaded at start by the Parquet lanes, which encode row groups as they fetch: ADR 0056.)
  for (const pkg of ['mailparser', 'htmlparser2', '@electric-sql/pglite']) expect(loadsPackage(loaded, pkg), pkg).toBe(false);
  // smtp-server (the mail catcher) loads a few of nodemailer's shared helpers; its transports and mailer stay unloaded.
  expect(loaded.filter((u) => u.includes('/node_modules/nodemailer/') && /\/(smtp-transport|mailer|mail-composer|mime-node)\/|\/nodemailer\.js$/.test(u))).toEqual([]);
  for (const file of ['domain/staging/render-xlsx.ts', 'domain/staging/render-parquet.ts', 'domain/formats/xlsx/workbook.ts', 'db/pglite-database.ts']) expect(loadsFile(loaded, file), file).toBe(false);
}, 60_000);
