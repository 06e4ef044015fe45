// `npm run build`: the service compiled, in dist/ (production, and `npm start`, which runs it):
//   1. esbuild transpiles app/ api/ … file by file to ES modules (in about a second, a fraction of
//      tsc's emit; types are checked by `npm run typecheck` in CI, not at build). Running compiled
//      code rather than through tsx saves memory (docs/performance.md, ADR 0016);
//   2. the SQL migrations and functions beside the compiled db client (db/migrate.ts finds them next to itself);
//   3. the workflow bundle, built from the compiled workflows (dist/workflow-bundle.js), so a
//      worker started with plain `node dist/app/worker.js` never runs webpack or tsx;
//   4. the web console (scripts/build-console.mjs) into console/dist/, which the API serves at GET /;
//   5. the client package packed as an installable tarball, dist/download-center-client-<version>.tgz
//      (`npm pack` in client/, whose prepack compiles it), for integrators to `npm install`. The
//      build of `npm start` (--if-changed) leaves it out: running the service needs no client.
// The last file written is dist/.build-stamp, a hash of everything the build reads: with
// `--if-changed` an up-to-date dist/ is kept (the scale-out test builds this way), and a build cut
// short leaves no stamp, so it is redone.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const out = join(root, 'dist');
const stampFile = join(out, '.build-stamp');
const sourceDirs = ['app', 'api', 'activities', 'workflows', 'domain', 'model', 'platform', 'db', 'console/src'];

function inputsHash() {
  const hash = createHash('sha256');
  for (const dir of sourceDirs) {
    for (const f of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' }).sort()) {
      if (/\.(ts|tsx|css|sql|json)$/.test(f)) hash.update(`${dir}/${f}\0`).update(readFileSync(join(root, dir, f)));
    }
  }
  for (const f of ['package-lock.json', 'tsconfig.json', 'scripts/build.mjs', 'scripts/build-console.mjs', 'console/index.html']) hash.update(f).update(readFileSync(join(root, f)));
  return hash.digest('hex');
}

const stamp = inputsHash();
if (process.argv.includes('--if-changed') && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
  if (!process.argv.includes('--quiet')) console.log('dist/ is up to date');
  process.exit(0);
}

const started = Date.now();
rmSync(out, { recursive: true, force: true });
const { build } = await import('esbuild');
// The console is bundled for the browser by build-console.mjs, not transpiled here.
const entryPoints = sourceDirs.filter((dir) => !dir.startsWith('console')).flatMap((dir) =>
  readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(root, dir, f)),
);
// tsconfig.json's isolatedModules + verbatimModuleSyntax make file-by-file transpiling exact.
await build({ entryPoints, outdir: out, outbase: root, format: 'esm', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning' });
for (const dir of ['migrations', 'functions']) cpSync(join(root, 'db', dir), join(out, 'db', dir), { recursive: true });

const { bundleWorkflowCode } = await import('@temporalio/worker');
const quiet = () => {};
const { code } = await bundleWorkflowCode({
  workflowsPath: join(out, 'workflows', 'index.js'),
  logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: console.warn, error: console.error },
});
// One byte a character, the source map without the sources' text, in every process that runs workflows (app/bundle-text.ts, just compiled).
const { bundleText } = await import(pathToFileURL(join(out, 'app', 'bundle-text.js')).href);
writeFileSync(join(out, 'workflow-bundle.js'), bundleText(code));
const { buildConsole } = await import('./build-console.mjs');
await buildConsole();
// The image's build (Dockerfile) copies no client/, so it has none to pack.
if (!process.argv.includes('--if-changed') && existsSync(join(root, 'client', 'package.json'))) {
  const [{ filename }] = JSON.parse(execFileSync('npm', ['pack', '--pack-destination', out, '--json', '--loglevel=error'], { cwd: join(root, 'client'), encoding: 'utf8' }));
  console.log(`packed the client as dist/${filename}`);
}
writeFileSync(stampFile, stamp);
console.log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
