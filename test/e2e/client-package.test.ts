// The client as an integrator installs it: packed, installed from the tarball into an empty project
// (test/support/client-package.ts), then used from plain node, ESM and CommonJS, against the real
// service, and type-checked from TypeScript through the package's own declarations.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { projectRoot } from '../../platform/paths.js';
import { installClient, packClient } from '../support/client-package.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let project: { api_key: string };
const { source, closeSources } = sourcePool();
const dir = mkdtempSync(join(tmpdir(), 'dc-client-package-'));

beforeAll(async () => {
  installClient(dir, packClient(dir));
  env = await startTestEnv();
  project = await env.createProject({ source_hosts: ['127.0.0.1'] });
});

afterAll(async () => {
  await closeSources();
  await env?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs a script of the integrator's project with plain node (no tsx, no loader); returns its JSON.
 * Asynchronously: the API and the worker answering it run in this process.
 */
async function run(file: string, text: string, vars: Record<string, string>): Promise<any> {
  writeFileSync(join(dir, file), text);
  const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...vars }, timeout: 55_000 });
  return JSON.parse(stdout);
}

const ESM = `import { DownloadCenter, DownloadCenterError } from '@download-center/client';
const dc = new DownloadCenter({ baseUrl: process.env.DC_BASE, apiKey: process.env.DC_KEY });
const submitted = await dc.submit({ source_url: process.env.DC_SOURCE, operator_id: 'integrator', file_name: 'packaged' });
const done = await dc.waitUntilDone(submitted.task_id, { intervalMs: 100, timeoutMs: 50_000 });
const stranger = new DownloadCenter({ baseUrl: process.env.DC_BASE, apiKey: 'not-a-key' });
const refused = await stranger.get(submitted.task_id).catch((e) => ({ isError: e instanceof DownloadCenterError, status: e.status, code: e.code }));
console.log(JSON.stringify({ submitted, done, refused }));
`;

// CommonJS: require() of the ESM build, which Node loads synchronously since 20.19 (no top-level await in the package).
const CJS = `const { DownloadCenter } = require('@download-center/client');
const dc = new DownloadCenter({ baseUrl: process.env.DC_BASE, apiKey: process.env.DC_KEY });
dc.get(process.env.DC_TASK).then((task) => console.log(JSON.stringify(task)));
`;

it('submits a task and reads it back from plain node, with import and with require', async () => {
  const src = await source({ total: 321 });
  const vars = { DC_BASE: env.base, DC_KEY: project.api_key, DC_SOURCE: src.url };
  const { submitted, done, refused } = await run('export.mjs', ESM, vars);
  expect(submitted).toMatchObject({ status: expect.stringMatching(/queued|running/), file_name: 'packaged', operator_id: 'integrator' });
  expect(done).toMatchObject({ task_id: submitted.task_id, status: 'succeeded', progress: { fetched_rows: 321 } });
  expect(done.files).toHaveLength(1);
  expect(refused).toEqual({ isError: true, status: 401, code: expect.any(String) });
  const read = await run('read.cjs', CJS, { ...vars, DC_TASK: submitted.task_id });
  expect(read).toMatchObject({ task_id: submitted.task_id, status: 'succeeded', files: done.files.map((f: { name: string }) => ({ name: f.name })) });
});

it('carries its type declarations: a TypeScript consumer is checked against them', () => {
  writeFileSync(
    join(dir, 'consumer.ts'),
    `import { DownloadCenter, type Task } from '@download-center/client';
import type { components } from '@download-center/client/schema';
const dc = new DownloadCenter({ baseUrl: 'http://localhost:8080', apiKey: 'key' });
export const read = (id: string): Promise<Task> => dc.get(id);
export const final: components['schemas']['Task']['status'] = 'succeeded';
// @ts-expect-error source_url is required by the schema
export const wrong = dc.submit({ operator_id: 'x' });
`,
  );
  const compilerOptions = { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, types: ['node'], typeRoots: [join(projectRoot, 'node_modules', '@types')] };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
  const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  // Throws with tsc's report when the declarations are missing, wrong or not found through `exports`.
  execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
});
