// `node --import tsx scripts/ui-screenshot.ts [docs/temporal-ui-exports.png]`: runs `npm start` on
// fresh ports, makes exports of two projects (finished, running, paused, failed), checks the saved
// queries of docs/operations.md against the embedded Temporal, and has headless Chromium (the
// system's /usr/bin/chromium, driven by playwright-core) photograph the Temporal UI listing one
// project's exports. Needs `apt-get install chromium` (Debian) once.
import { resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { chromium } from 'playwright-core';
import { startEmbedded } from '../test/support/embedded.js';
import { freePort } from '../test/support/ports.js';
import { startSource } from '../test/support/source-server.js';

const out = resolve(process.argv[2] ?? 'docs/temporal-ui-exports.png');
const ports = { port: await freePort(), temporal: await freePort(), ui: await freePort() };
const svc = await startEmbedded({ ports, env: { SHUTDOWN_DELAY_MS: '0' } });
const fast = await startSource({ total: 1_200 });
const slow = await startSource({ total: 400_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 400) });
const broken = await startSource({ total: 3_000, intercept: (r) => (r.page === 2 && r.pageSize !== 1 ? { status: 404, body: 'gone' } : undefined) });
const admin = svc.adminToken();
const hosts = [fast.host, slow.host, broken.host];

try {
  const merchant = (await svc.call('POST', '/v1/projects', admin, { name: 'merchant-platform', source_hosts: hosts, max_running_tasks: 4 })).json;
  const cards = (await svc.call('POST', '/v1/projects', admin, { name: 'card-backoffice', source_hosts: hosts })).json;
  const submit = async (key: string, body: Record<string, unknown>) => {
    const res = await svc.call('POST', '/v1/tasks', key, { page_size: 500, ...body });
    if (res.status !== 202) throw new Error(`submit: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json.task_id as string;
  };
  type Task = { status: string; stage: string | null; progress: { pages_done: number } };
  const waitFor = async (key: string, id: string, until: (t: Task) => boolean) => {
    for (let i = 0; i < 300; i++) {
      const t = (await svc.call('GET', `/v1/tasks/${id}`, key)).json as Task;
      if (until(t)) return t;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`task ${id} did not get there`);
  };
  const done = (t: Task) => !['queued', 'running'].includes(t.status);
  const m = merchant.api_key as string;
  await waitFor(m, await submit(m, { source_url: fast.url, operator_id: 'u42', file_name: 'orders-2026-10' }), done);
  await waitFor(m, await submit(m, { source_url: `${fast.url}?month=2026-11`, operator_id: 'u7', type: 'excel', file_name: 'settlement-2026-11' }), done);
  await waitFor(m, await submit(m, { source_url: broken.url, operator_id: 'u42', file_name: 'refunds-2026-11' }), done);
  const paused = await submit(m, { source_url: `${slow.url}?shop=sh`, operator_id: 'u7', file_name: 'fuel-sales-shanghai' });
  await waitFor(m, paused, (t) => t.progress.pages_done > 0 || t.stage === 'fetching');
  await svc.call('POST', `/v1/tasks/${paused}/pause`, m);
  await submit(m, { source_url: `${slow.url}?month=2026-11`, operator_id: 'u42', file_name: 'orders-2026-11' });
  await submit(m, { source_url: `${slow.url}?month=2026-11&shop=bj`, operator_id: 'u42', type: 'excel', file_name: 'orders-beijing-2026-11' });
  await waitFor(cards.api_key, await submit(cards.api_key, { source_url: fast.url, operator_id: 'ops-1', file_name: 'card-txns' }), done);
  await submit(cards.api_key, { source_url: slow.url, operator_id: 'ops-1', file_name: 'card-txns-year' });
  // Let the running ones get a few chunks in and the visibility store catch up.
  await new Promise((r) => setTimeout(r, 4000));

  // The saved queries of docs/operations.md, run as the UI's search box runs them.
  const temporal = new Client({ connection: await Connection.connect({ address: `127.0.0.1:${ports.temporal}` }) });
  const yesterday = new Date(Date.now() - 24 * 3600_000).toISOString();
  const queries = [
    `DcProjectId = "${merchant.project_id}" AND DcStatus = "running"`,
    `DcProjectId = "${merchant.project_id}"`,
    `DcOperatorId = "u42" AND StartTime > "${yesterday}"`,
    `DcStatus = "failed" AND StartTime > "${yesterday}"`,
    `WorkflowType IN ("exportWorkflow", "syncExportWorkflow") AND ExecutionStatus = "Failed"`,
    `DcStatus IN ("running", "queued") AND DcRows > 100000`,
    `DcStatus = "paused"`,
    `DcExportType = "excel" AND ExecutionStatus = "Running"`,
    `WorkflowType = "callbackWorkflow" AND ExecutionStatus = "Running"`,
  ];
  for (const query of queries) {
    const ids: string[] = [];
    for await (const w of temporal.workflow.list({ query })) ids.push(w.workflowId);
    console.log(`${String(ids.length).padStart(3)}  ${query}`);
  }
  await temporal.connection.close();

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1920, height: 820 } });
  const query = `DcProjectId = "${merchant.project_id}"`;
  await page.goto(`http://127.0.0.1:${ports.ui}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
  await page.waitForSelector('text=exportWorkflow', { timeout: 30_000 });
  // The columns an operator wants (the UI keeps them per browser): the Dc* attributes instead of run id and type.
  await page.click('[data-testid="workflows-summary-table-configuration-button"]');
  for (const name of ['Run ID', 'Type']) await page.click(`[data-testid="orderable-list-item-${name}-remove-button"]`);
  for (const name of ['DcStatus', 'DcOperatorId', 'DcExportType', 'DcRows']) await page.click(`[data-testid="orderable-list-item-${name}-add-button"]`);
  await page.click('[data-testid="drawer-close-button"]');
  await page.waitForTimeout(1500);
  await page.screenshot({ path: out });
  console.log(`screenshot: ${out}`);
  // One running export: its summary, details and current details.
  const running = await page.$eval('a[href*="/workflows/tsk_"]', (a) => a.getAttribute('href'));
  await page.goto(`http://127.0.0.1:${ports.ui}${running}`);
  // Summary, details and current details are under the run's "User Metadata" tab.
  await page.click('text=User Metadata', { timeout: 30_000 });
  await page.waitForTimeout(2500);
  const one = out.replace(/\.png$/, '-one.png');
  await page.screenshot({ path: one });
  console.log(`screenshot: ${one}`);
  await browser.close();
} finally {
  await Promise.all([fast.close(), slow.close(), broken.close()]);
  svc.signal('SIGTERM');
  await svc.exited;
}
