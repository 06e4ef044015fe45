// The newcomer's minute: `npm start`, then `npm run demo` ends by printing a download link and a
// link to the demo operator's page; that link opens the operator's center in Chromium showing the
// demo's task, ready to download, and its session lists that task through the API.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { projectRoot } from '../../platform/paths.js';
import { buildConsole, launchChromium } from '../support/browser.js';
import { type Embedded, startEmbedded } from '../support/embedded.js';

let svc: Embedded | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  buildConsole();
  browser = await launchChromium();
  svc = await startEmbedded();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (svc && svc.child.exitCode === null && svc.child.signalCode === null) {
    svc.signal('SIGINT');
    await svc.exited;
  }
  if (svc) rmSync(svc.dataDir, { recursive: true, force: true });
});

/** `npm run demo` against the running service, in the environment a newcomer's second shell has. */
async function runDemo(): Promise<string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !['DATABASE_URL', 'TEMPORAL_ADDRESS', 'S3_ENDPOINT', 'ADMIN_TOKEN', 'LINK_SECRET'].includes(k)) env[k] = v;
  Object.assign(env, { DATA_DIR: svc!.dataDir, PORT: String(svc!.port), LOG_LEVEL: 'warn' });
  const { stdout } = await promisify(execFile)('npm', ['run', 'demo', '--silent'], { cwd: projectRoot, env, timeout: 90_000 });
  return stdout;
}

it("npm run demo ends with a link that opens the demo operator's page, showing the demo's task", async () => {
  const out = await runDemo();
  const task = /task (tsk_\w+) submitted/.exec(out)?.[1];
  expect(task).toBeDefined();
  expect(out).toMatch(/download: http/);
  // Among the closing lines (the caught e-mail's link may print beside it).
  const link = /^operator's page \(demo-user, valid for a day\): (\S+)$/m.exec(out.slice(out.indexOf('download: ')))?.[1];
  expect(link).toMatch(new RegExp(`^http://localhost:${svc!.port}/operator#token=dco_`));
  // The token in the link sees the demo operator's tasks: the demo's one.
  const token = new URL(link!).hash.slice('#token='.length);
  const listed = await svc!.call('GET', '/v1/tasks', token);
  expect([listed.status, listed.json.items.map((t: { task_id: string }) => t.task_id)]).toEqual([200, [task]]);

  const page = await browser!.newPage({ acceptDownloads: true });
  await page.goto(link!);
  await page.getByRole('heading', { name: 'My downloads' }).waitFor();
  expect(page.url()).toBe(`http://localhost:${svc!.port}/operator`);
  await page.getByText('Signed in as demo-user').waitFor();
  const row = page.locator('li.task', { hasText: '演示订单-2026-11' });
  await row.locator('.badge', { hasText: 'Succeeded' }).waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: /Download 演示订单-2026-11\.csv/ }).click()]);
  expect(download.suggestedFilename()).toBe('演示订单-2026-11.csv');
  expect(readFileSync((await download.path())!, 'utf8').split('\n').filter(Boolean)).toHaveLength(5001); // header and 5,000 rows
  await page.close();
}, 180_000);
