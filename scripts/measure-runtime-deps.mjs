// The size of the production image's node_modules, measured as the Dockerfile
// builds it: `npm ci --omit=dev --ignore-scripts` from package.json and package-lock.json into an
// empty folder (from npm's cache when it holds the packages), patches/ applied, then
// scripts/prune-runtime-deps.mjs.
// Prints the figure and the largest packages; fails above the budget (docs/adr/0025-runtime-weight.md).
// `npm run check:deploy` runs it in CI.
//   node scripts/measure-runtime-deps.mjs [--budget-mb 300] [--keep]
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pruneRuntimeDeps } from './prune-runtime-deps.mjs';

const root = resolve(import.meta.dirname, '..');
const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const budgetMb = Number(process.argv.includes('--budget-mb') ? arg('--budget-mb') : 300);
const MB = 1024 * 1024;

/** Bytes on disk (du's blocks, as a layer of the image would take), of a folder. */
const du = (path) => Number(execFileSync('du', ['-sk', path], { encoding: 'utf8' }).split('\t')[0]) * 1024;

const dir = mkdtempSync(join(tmpdir(), 'dc-runtime-deps-'));
try {
  for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(root, f), join(dir, f));
  execFileSync('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  // As the Dockerfile does: the patches must apply to the production tree (the image fails to build otherwise).
  cpSync(join(root, 'patches'), join(dir, 'patches'), { recursive: true });
  execFileSync('npx', ['--no-install', 'patch-package', '--error-on-fail'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  const nodeModules = join(dir, 'node_modules');
  const before = du(nodeModules);
  pruneRuntimeDeps(nodeModules);
  const after = du(nodeModules);
  const packages = readdirSync(nodeModules)
    .filter((n) => !n.startsWith('.'))
    .flatMap((n) => (n.startsWith('@') ? readdirSync(join(nodeModules, n)).map((s) => `${n}/${s}`) : [n]))
    .map((name) => ({ name, bytes: du(join(nodeModules, name)) }))
    .sort((a, b) => b.bytes - a.bytes);
  const mb = (b) => `${(b / MB).toFixed(1)} MB`;
  console.log(`runtime node_modules: ${mb(after)} (${mb(before)} before pruning the other platforms' binaries), ${packages.length} packages; budget ${budgetMb} MB`);
  console.log(`largest: ${packages.slice(0, 8).map((p) => `${p.name} ${mb(p.bytes)}`).join(', ')}`);
  if (after > budgetMb * MB) {
    console.error(`the image's runtime dependencies weigh ${mb(after)}, over the ${budgetMb} MB budget`);
    process.exitCode = 1;
  }
} finally {
  if (process.argv.includes('--keep')) console.log(`kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
