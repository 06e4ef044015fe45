// Removes from a production node_modules what the image never runs: the Temporal core bridge ships
// a prebuilt native module for five platforms (~27 MB each) and its Rust sources (used only to build
// one from scratch); the image keeps the one binary of the platform it runs on. Run by the Dockerfile
// after `npm ci --omit=dev` (in the image's own architecture) and by scripts/measure-runtime-deps.mjs,
// so what CI measures is what the image holds.
//   node scripts/prune-runtime-deps.mjs [node_modules dir]   (default: ./node_modules)
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

// The core bridge's own naming of its prebuilt folders (@temporalio/core-bridge/common.js).
const ARCH = { x64: 'x86_64', arm64: 'aarch64' };
const OS = { linux: 'unknown-linux-gnu', darwin: 'apple-darwin', win32: 'pc-windows-msvc' };
export const targetName = (a = arch(), p = platform()) => `${ARCH[a] ?? a}-${OS[p] ?? p}`;

/** Deletes the other platforms' binaries and the bridge's sources; returns what it removed. */
export function pruneRuntimeDeps(nodeModules, target = targetName()) {
  const bridge = join(nodeModules, '@temporalio', 'core-bridge');
  const releases = join(bridge, 'releases');
  if (!existsSync(releases)) return [];
  const kept = readdirSync(releases);
  if (!kept.includes(target)) throw new Error(`@temporalio/core-bridge has no prebuilt binary for ${target} (it has ${kept.join(', ')})`);
  const removed = [
    ...kept.filter((t) => t !== target).map((t) => join(releases, t)),
    ...['sdk-core', 'src', 'bridge-macros', 'Cargo.toml', 'Cargo.lock'].map((f) => join(bridge, f)).filter((p) => existsSync(p)),
  ];
  for (const p of removed) rmSync(p, { recursive: true, force: true });
  return removed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = resolve(process.argv[2] ?? 'node_modules');
  const removed = pruneRuntimeDeps(dir);
  console.log(`kept @temporalio/core-bridge's ${targetName()} binary; removed ${removed.length} other platforms' binaries and sources`);
}
