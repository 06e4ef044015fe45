// LibreOffice (Debian's libreoffice-calc, headless) as an outside reader of workbooks: it converts
// one to PDF, and poppler's pdftotext gives the text it drew (cells, chart titles, axis and series
// names). Each conversion uses a private profile, so it neither needs nor touches a user's.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The PDF LibreOffice makes of `path`, written into `outDir`; returns its path. */
export async function toPdf(path: string, outDir: string): Promise<string> {
  const profile = await mkdtemp(join(tmpdir(), 'dc-soffice-'));
  try {
    await run('soffice', [`-env:UserInstallation=file://${profile}`, '--headless', '--convert-to', 'pdf', '--outdir', outDir, path], { timeout: 120_000 }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') throw new Error('soffice is missing: run `node scripts/test-tools.mjs` (apt-get install libreoffice-calc)');
      throw err;
    });
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
  return join(outDir, basename(path).replace(/\.[^.]+$/, '.pdf'));
}

/** The text of a PDF, in reading order. */
export async function pdfText(pdf: string): Promise<string> {
  const { stdout } = await run('pdftotext', ['-layout', pdf, '-'], { maxBuffer: 64 << 20, timeout: 60_000 });
  return stdout;
}
