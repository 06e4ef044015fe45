// The API fuzzed against its own document: Schemathesis (installed by `npm ci` into
// .tools/schemathesis, scripts/test-tools.mjs) reads /openapi.json of the real service and sends
// schema-valid and schema-invalid requests to every operation, as a project and as the admin, with
// every check: no 5xx, only documented statuses, headers and bodies, valid requests accepted,
// invalid ones refused, 405 with Allow for undeclared methods. Any finding fails the test, with
// Schemathesis' own report (each finding with a curl line to reproduce it).
//
// Every operation is tested, none skipped and none whose valid requests the generator filters out
// (a pattern it cannot build strings to: Schemathesis' filter_too_much health check, an error);
// the runs' summaries are read to hold that. GET /v1/ws and GET /v1/files/{task_id}/{name} are
// fuzzed as what a fuzzer can send them, requests their handshake or signature refuses
// (test/fuzz/schemathesis.toml says why; test/e2e/direct-downloads.test.ts covers signed links).
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

/** Every check, every phase: a project's or the admin's run. */
const everything = ['--checks', 'all', '--phases', 'examples,coverage,fuzzing', '--max-examples', '5'];
/**
 * Valid requests only, enough of them that Hypothesis' health check judges each operation's
 * generation: a body whose patterns it can only filter by (POST /v1/projects' host lists did) fails.
 */
const validOnly = ['--checks', 'not_a_server_error', '--phases', 'fuzzing', '--mode', 'positive', '--max-examples', '20'];

function schemathesis(token: string, how: string[]): Promise<{ code: number | null; output: string }> {
  const args = [
    '-m', 'schemathesis.cli', '--config-file', join(HOOKS_DIR, 'schemathesis.toml'), 'run', `${env.base}/openapi.json`,
    '--url', env.base,
    '--header', `Authorization: Bearer ${token}`,
    ...how,
    '--seed', SEED,
    '--generation-database', 'none',
    '--request-timeout', '30',
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

it('Schemathesis is installed (scripts/test-tools.mjs)', () => {
  expect(existsSync(join(TOOL_DIR, 'schemathesis')), `no Schemathesis in ${TOOL_DIR}: run node scripts/test-tools.mjs`).toBe(true);
});

/** The run found nothing, and tested every operation of the document. */
function expectClean({ code, output }: { code: number | null; output: string }): void {
  expect(code, output).toBe(0);
  const selected = /Selected: (\d+)\/(\d+)/.exec(output);
  const tested = /Tested: (\d+)/.exec(output);
  expect(selected, output).not.toBeNull();
  expect(Number(selected![1]), output).toBe(Number(selected![2]));
  expect(Number(tested?.[1]), output).toBe(Number(selected![1]));
  // A health check or any other error is no finding, but leaves an operation untested.
  expect(output, output).not.toMatch(/Failed Health Check|filter_too_much|Errors:|Skipped:|unsupported regex/i);
}

it('finds nothing as a project', { timeout: 480_000 }, async () => {
  expectClean(await schemathesis(key, everything));
});

it('finds nothing as the admin', { timeout: 480_000 }, async () => {
  expectClean(await schemathesis(ADMIN, everything));
});

it('generates valid requests for every operation: no health check filters one out', { timeout: 240_000 }, async () => {
  expectClean(await schemathesis(ADMIN, validOnly));
});
