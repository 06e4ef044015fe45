// The npm mirror on our build machines lacks @swc/core's non-Linux builds, so `npm install` writes a
// lockfile without them and `npm ci` then refuses it ("Missing: … from lock file"). This adds the
// missing optional platform packages as os/cpu-gated entries, which npm skips on other platforms
// (and fetches by name, from the registry, on the platform that needs them). Run after `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const platform = (name) => {
  const m = /-(darwin|linux|win32|freebsd|android)-([a-z0-9]+)/.exec(name);
  return m ? { os: [m[1]], cpu: [m[2] === 'arm' ? 'arm' : m[2]] } : null;
};
let added = 0;
for (const [path, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (lock.packages[key] || lock.packages[`${path}/node_modules/${dep}`]) continue;
    const p = platform(dep);
    if (!p) continue;
    // The key order npm itself writes, so a later `npm install` leaves the file unchanged.
    lock.packages[key] = { version, cpu: p.cpu, optional: true, os: p.os };
    added++;
  }
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
lock.packages = sorted;
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} optional platform entries`);
