// Builds the web console (console/, Preact) into console/dist/ with esbuild: one minified script
// and one stylesheet, named by their content hash (served as immutable), and index.html and operator.html naming them
// (served with no-store, so a new build is picked up at the next load). Beside it, in
// console/dist/docs/, the API reference page of GET /docs: Scalar's HTML and its one prebuilt
// browser script, copied here so the image needs none of Scalar's packages at run time
// (docs/adr/0025-runtime-weight.md). Run by `npm install` (postinstall, after the tools), by
// `npm run build` and by the console's browser test. `node scripts/build-console.mjs` prints the sizes.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { Buffer } from 'node:buffer';
import { gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
export const consoleOut = join(root, 'console', 'dist');

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
  const page = (template, js, css) => readFileSync(join(root, 'console', template), 'utf8').replace('%JS%', `/console/${js.name}`).replace('%CSS%', `/console/${css.name}`);
  const pages = [
    { name: 'index.html', body: page('index.html', assets[0], assets[1]) },
    { name: 'operator.html', body: page('operator.html', assets[2], assets[3]) },
  ];
  // Written to a fresh folder, then the pages last: a server never names assets not yet there.
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const a of assets) writeFileSync(join(outDir, a.name), a.body);
  await buildDocsPage(join(outDir, 'docs'));
  for (const p of pages) writeFileSync(join(outDir, p.name), p.body);
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
  copyFileSync(createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js'), join(dir, 'scalar.js'));
  writeFileSync(join(dir, 'index.html'), page);
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
