// Builds the web console (console/, Preact) into console/dist/ with esbuild: one minified script
// and one stylesheet, named by their content hash (served as immutable), and index.html and operator.html naming them,
// both from the one page console/index.html (operator.html keeps its <!--META--> slot for the server to fill)
// (served with no-store, so a new build is picked up at the next load). Beside it, in
// console/dist/docs/, the API reference page of GET /docs: Scalar's HTML and its one prebuilt
// browser script, copied here so the image needs none of Scalar's packages at run time
// (docs/adr/0025-runtime-weight.md). Run by `npm install` (postinstall, after the tools), by
// `npm run build` and by the console's browser test. `node scripts/build-console.mjs` prints the sizes.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { Buffer } from 'node:buffer';
import { gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
export const consoleOut = join(root, 'console', 'dist');

/** Writes a file whole or not at all, as readers see it. */
function writeAtomic(path, body) {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, body);
  renameSync(tmp, path);
}

const hashed = (name, ext, body) => `${name}.${createHash('sha256').update(body).digest('hex').slice(0, 12)}.${ext}`;

/** Builds the console; returns each written asset's name and its raw and gzipped sizes. */
export async function buildConsole({ outDir = consoleOut } = {}) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    // The operator's center (GET /operator) is a second, smaller page: none of the project's forms.
    entryPoints: { app: join(root, 'console', 'src', 'main.tsx'), operator: join(root, 'console', 'src', 'operator-main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome100', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    loader: { '.css': 'css' },
    outdir: 'out',
    write: false,
    logLevel: 'warning',
    legalComments: 'none',
  });
  const out = (name, ext) => {
    const f = result.outputFiles.find((o) => o.path.endsWith(`/${name}.${ext}`));
    return { name: hashed(name, ext, f.contents), body: f.contents };
  };
  const assets = [out('app', 'js'), out('app', 'css'), out('operator', 'js'), out('operator', 'css')];
  const template = readFileSync(join(root, 'console', 'index.html'), 'utf8');
  const page = (js, css) => template.replace('%JS%', `/console/${js.name}`).replace('%CSS%', `/console/${css.name}`);
  const pages = [
    { name: 'index.html', body: page(assets[0], assets[1]).replace('<!--META-->\n', '') },
    { name: 'operator.html', body: page(assets[2], assets[3]) },
  ];
  // The assets first, then the pages: a server never names assets not yet there. Each file is
  // written beside and renamed into place, and the folder is never emptied, so two builds at once
  // (the browser tests run in parallel) never leave a page missing or half written; files of an
  // older build are removed last.
  mkdirSync(outDir, { recursive: true });
  for (const a of assets) writeAtomic(join(outDir, a.name), a.body);
  await buildDocsPage(join(outDir, 'docs'));
  for (const p of pages) writeAtomic(join(outDir, p.name), p.body);
  const current = new Set([...assets, ...pages].map((f) => f.name));
  for (const f of readdirSync(outDir)) if (f !== 'docs' && !current.has(f) && !f.includes('.tmp-')) rmSync(join(outDir, f), { force: true });
  return [...assets, ...pages].map((a) => ({ name: a.name, bytes: typeof a.body === 'string' ? Buffer.byteLength(a.body) : a.body.length, gzip: gzipSync(a.body).length }));
}

/**
 * GET /docs: Scalar's page for /openapi.json, rendered once here by its Hono middleware (its theme
 * and markup), loading its script from /docs/scalar.js and no web fonts, so nothing comes from
 * another host.
 */
async function buildDocsPage(dir) {
  const { Scalar } = await import('@scalar/hono-api-reference');
  const config = { url: '/openapi.json', cdn: '/docs/scalar.js', pageTitle: 'Download Center API', withDefaultFonts: false };
  // The middleware answers through the context's html(); that is all it uses of it.
  const page = await Scalar(config)({ html: (body) => body });
  mkdirSync(dir, { recursive: true });
  writeAtomic(join(dir, 'scalar.js'), readFileSync(createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js')));
  writeAtomic(join(dir, 'index.html'), page);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const files = await buildConsole();
    console.log(`console built in console/dist: ${files.map((f) => `${f.name} ${(f.bytes / 1024).toFixed(1)} KiB (${(f.gzip / 1024).toFixed(1)} KiB gzipped)`).join(', ')}`);
  } catch (err) {
    // In a postinstall, never fail the install: the API answers 503 console_not_built until a build.
    console.warn(`download-center: the console could not be built: ${err.message}`);
    if (!process.argv.includes('--no-fail')) process.exit(1);
  }
}
