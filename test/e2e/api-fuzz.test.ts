// The API fuzzed against its own document: Schemathesis (installed by `npm ci` into
// .tools/schemathesis, scripts/ensure-tools.mjs) reads /openapi.json of the real service and sends
// schema-valid and schema-invalid requests to every operation, as a project and as the admin, with
// every check: no 5xx, only documented statuses, headers and bodies, valid requests accepted,
// invalid ones refused, 405 with Allow for undeclared methods. Any finding fails the test, with
// Schemathesis' own report (each finding with a curl line to reproduce it).
//
// Left out, each because a fuzzer cannot exercise it meaningfully:
// - GET /v1/ws: a WebSocket upgrade, not a request and an answer (test/e2e/ws.test.ts and
//   input-hardening.test.ts cover its refusals);
// - GET /v1/files/{task_id}/{name}: a signed link, which only the service can make; any generated
//   signature is rightly 403 (test/e2e/direct-downloads.test.ts covers it).
// The few rules that depend on the service's state (allow-lists, cursors, Idempotency-Keys,
// templates) are kept by test/fuzz/dc_fuzz_hooks.py for valid requests only; it says why.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { projectRoot } from '../../platform/paths.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

const TOOL_DIR = process.env.SCHEMATHESIS_PYTHONPATH ?? join(projectRoot, '.tools', 'schemathesis');
const HOOKS_DIR = join(projectRoot, 'test', 'fuzz');
/** A fixed seed: a finding reproduces; DC_FUZZ_SEED explores others. */
const SEED = process.env.DC_FUZZ_SEED ?? '20261124';

let env: TestEnv;
let key: string;
let sourceUrl: string;
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  env = await startTestEnv();
  const src = await source({ total: 30 });
  sourceUrl = src.url;
  // Room for what the fuzzer submits: its valid tasks and schedules are accepted, not rate limited.
  ({ api_key: key } = await env.createProject({ source_hosts: [src.host], callback_hosts: [src.host], destination_hosts: [src.host], email_domains: ['example.com'], submit_per_minute: 10_000, max_schedules: 1000 }));
});

afterAll(async () => {
  await closeSources();
  await env?.close();
});

function schemathesis(token: string): Promise<{ code: number | null; output: string }> {
  const args = [
    '-m', 'schemathesis.cli', 'run', `${env.base}/openapi.json`,
    '--url', env.base,
    '--header', `Authorization: Bearer ${token}`,
    '--checks', 'all',
    '--phases', 'examples,coverage,fuzzing',
    '--max-examples', '5',
    '--seed', SEED,
    '--generation-database', 'none',
    '--request-timeout', '30',
    '--exclude-path', '/v1/ws',
    '--exclude-path', '/v1/files/{task_id}/{name}',
    '--no-color',
  ];
  const pythonPath = [TOOL_DIR, HOOKS_DIR, process.env.PYTHONPATH].filter(Boolean).join(':');
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, {
      // Schemathesis keeps its state in .schemathesis/ of its working directory: not in the repository.
      cwd: tmpdir(),
      env: { ...process.env, PYTHONPATH: pythonPath, SCHEMATHESIS_HOOKS: 'dc_fuzz_hooks', DC_FUZZ_SOURCE_URL: sourceUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

it('Schemathesis is installed (npm ci: scripts/ensure-tools.mjs)', () => {
  expect(existsSync(join(TOOL_DIR, 'schemathesis')), `no Schemathesis in ${TOOL_DIR}: run npm ci (or node scripts/ensure-tools.mjs)`).toBe(true);
});

it('finds nothing as a project', { timeout: 240_000 }, async () => {
  const { code, output } = await schemathesis(key);
  expect(code, output).toBe(0);
  expect(output).toMatch(/Tested: \d+/);
});

it('finds nothing as the admin', { timeout: 240_000 }, async () => {
  const { code, output } = await schemathesis(ADMIN);
  expect(code, output).toBe(0);
  expect(output).toMatch(/Tested: \d+/);
});
