// The client package as an integrator gets it: `npm pack` in client/ (its prepack builds dist/), then
// the tarball installed into an empty project by `npm ci --offline`. The project's lockfile pins the
// client's dependencies to the versions and integrity hashes of the repository's own lockfile, so
// every tarball comes from npm's cache (which the repository's `npm ci` filled) and the install
// needs no registry: a fresh CI machine and an offline one install the same way.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { projectRoot } from '../../platform/paths.js';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  [key: string]: unknown;
}

const npm = (args: string[], cwd: string) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** Packs client/ into `dir`; returns the tarball's file name. */
export function packClient(dir: string): string {
  const out = npm(['pack', '--pack-destination', dir, '--json'], join(projectRoot, 'client'));
  return (JSON.parse(out) as Array<{ filename: string }>)[0]!.filename;
}

/** The lock entries of `deps` and everything they need, found as Node would from the root lock. */
function closure(packages: Record<string, LockEntry>, deps: Record<string, string>): Record<string, LockEntry> {
  const found: Record<string, LockEntry> = {};
  const visit = (from: string, name: string) => {
    // Node's lookup: from/node_modules/name, then each folder above.
    for (let dir = from; ; dir = posix.dirname(posix.dirname(dir))) {
      const path = posix.join(dir === '.' ? '' : dir, 'node_modules', name);
      const entry = packages[path];
      if (entry) {
        if (found[path]) return;
        const { dev: _dev, devOptional: _devOptional, peer: _peer, ...kept } = entry;
        found[path] = kept;
        for (const dep of Object.keys(entry.dependencies ?? {})) visit(path, dep);
        return;
      }
      if (dir === '.' || dir === '') throw new Error(`the repository's package-lock.json has no ${name} for ${from || 'the root'}`);
    }
  };
  for (const name of Object.keys(deps)) visit('.', name);
  return found;
}

/** An empty project in `dir` with the packed client installed; returns the client's package.json. */
export function installClient(dir: string, tarball: string): { dependencies: Record<string, string> } {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'client', 'package.json'), 'utf8')) as { name: string; version: string; dependencies: Record<string, string> };
  const rootLock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const integrity = `sha512-${createHash('sha512').update(readFileSync(join(dir, tarball))).digest('base64')}`;
  const spec = `file:${tarball}`;
  const project = { name: 'integrator', version: '1.0.0', private: true, type: 'module', dependencies: { [pkg.name]: spec } };
  const lock = {
    name: project.name,
    version: project.version,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: project.name, version: project.version, dependencies: project.dependencies },
      [`node_modules/${pkg.name}`]: { version: pkg.version, resolved: spec, integrity, dependencies: pkg.dependencies },
      ...closure(rootLock.packages, pkg.dependencies),
    },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(project, null, 2)}\n`);
  writeFileSync(join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  npm(['ci', '--offline', '--ignore-scripts'], dir);
  return pkg;
}
