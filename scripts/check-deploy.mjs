// `npm run check:deploy`: static checks of the deployment files, run by .ci/run. No container
// engine runs on our build machines, so the image is never built and the stack never started here
// (docs/deploy.md says what is and is not proven). The linters are installed into .tools/ by
// scripts/test-tools.mjs (which `npm run check:deploy` runs first); PATH copies are used when those
// are missing.
//   1. docker-compose.yml is a valid compose file (the compose-spec JSON schema check-jsonschema ships);
//   2. it keeps our rules (deploy/compose-policy.schema.json): persistence, health checks, start-up
//      order, pinned images, a scalable worker;
//   3. every ${VAR} it reads is in .env.example, every file it mounts exists, no image is :latest;
//   4. hadolint on the Dockerfile, shellcheck on the scripts the stack and CI run;
//   5. the image's runtime node_modules stays under its budget (scripts/measure-runtime-deps.mjs,
//      which installs the production tree from npm's cache into a temporary folder).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const tools = join(root, '.tools');
const failures = [];

function tool(name, dir) {
  const bundled = join(tools, dir, 'bin', name);
  if (existsSync(bundled)) return bundled;
  const onPath = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, name)));
  if (onPath) return join(onPath, name);
  failures.push(`${name} is missing: run node scripts/test-tools.mjs (it puts it in .tools/${dir})`);
  return null;
}

function run(label, cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', env });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  if (r.status === 0) console.log(`ok    ${label}`);
  else failures.push(`${label}\n${out || r.error?.message}`);
}

// 1 and 2: check-jsonschema, from .tools (with its dependencies beside it) or from PATH.
const cjsDir = join(tools, 'check-jsonschema');
const cjs = existsSync(join(cjsDir, 'check_jsonschema'))
  ? { cmd: 'python3', pre: ['-m', 'check_jsonschema'], env: { ...process.env, PYTHONPATH: cjsDir } }
  : { cmd: tool('check-jsonschema', 'check-jsonschema'), pre: [], env: process.env };
if (cjs.cmd) {
  run('docker-compose.yml: compose-spec schema', cjs.cmd, [...cjs.pre, '--builtin-schema', 'vendor.compose-spec', 'docker-compose.yml'], cjs.env);
  run('docker-compose.yml: deploy/compose-policy.schema.json', cjs.cmd, [...cjs.pre, '--schemafile', 'deploy/compose-policy.schema.json', 'docker-compose.yml'], cjs.env);
}

// 3: what the compose file reads from .env and from the repository.
const compose = readFileSync(join(root, 'docker-compose.yml'), 'utf8').replace(/^\s*#.*$/gm, '');
const example = readFileSync(join(root, '.env.example'), 'utf8');
const documented = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
const used = new Set([...compose.matchAll(/(?<!\$)\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]));
const undocumented = [...used].filter((v) => !documented.has(v));
if (undocumented.length) failures.push(`docker-compose.yml reads variables .env.example does not list: ${undocumented.join(', ')}`);
else console.log(`ok    .env.example lists all ${used.size} variables docker-compose.yml reads`);
const mounts = [...compose.matchAll(/["\s[](\.\/[\w./-]+):/g)].map((m) => m[1]);
const missing = mounts.filter((p) => !existsSync(join(root, p)));
if (missing.length) failures.push(`docker-compose.yml mounts files that do not exist: ${missing.join(', ')}`);
else console.log(`ok    the ${mounts.length} files docker-compose.yml mounts exist`);
const latest = [...`${compose}\n${example}`.matchAll(/[\w./-]+:latest\b/g)].map((m) => m[0]);
if (latest.length) failures.push(`images must be pinned, not: ${latest.join(', ')}`);

// 4: the Dockerfile and shell scripts.
const hadolint = tool('hadolint', 'hadolint');
if (hadolint) run('Dockerfile: hadolint', hadolint, ['Dockerfile']);
const shellcheck = tool('shellcheck', 'shellcheck');
const scripts = [...readdirSync(join(root, 'deploy', 'temporal')).filter((f) => f.endsWith('.sh')).map((f) => `deploy/temporal/${f}`), '.ci/run'];
if (shellcheck) run(`shellcheck: ${scripts.join(' ')}`, shellcheck, scripts);

// 5: the weight of the image's node_modules, installed and pruned as the Dockerfile does.
const weight = spawnSync(process.execPath, [join(root, 'scripts', 'measure-runtime-deps.mjs')], { cwd: root, encoding: 'utf8' });
const figure = `${weight.stdout ?? ''}${weight.stderr ?? ''}`.trim();
if (weight.status === 0) console.log(`ok    ${figure.replace(/\n/g, '\n      ')}`);
else failures.push(`the image's runtime dependencies (scripts/measure-runtime-deps.mjs)\n${figure || weight.error?.message}`);

if (failures.length) {
  console.error(`\ncheck:deploy failed:\n\n${failures.join('\n\n')}`);
  process.exit(1);
}
console.log('deployment files: all checks passed (static only: no image was built, no container started)');
