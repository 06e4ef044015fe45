// The web console (docs/console.md) in a real browser against the real service: sign in, the task list,
// a live progress bar, preview, download, cancel, filters, languages, the usage chart, and the key never in a URL.
// `npm run screenshots` (DC_SCREENSHOTS=1) also writes docs/console-desktop.png and -phone.png.
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildConsole, launchChromium } from '../support/browser.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { defaultRow, sourcePool } from '../support/source-server.js';
import { rechargeRow, styledRechargeTemplate } from '../support/templates.js';
import { zipEntries } from '../support/xlsx.js';

let env: TestEnv;
let key: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const seen: string[] = []; // every URL the browser requested, navigated to or opened a socket on
const problems: string[] = []; // console errors and CSP violations of the page
const { source, closeSources } = sourcePool();
const shots = mkdtempSync(join(tmpdir(), 'dc-console-'));

const row = (name: string) => page.locator('li.task', { hasText: name });
const submitVia = (body: Record<string, unknown>) => env.api('POST', '/v1/tasks', { token: key, body: { operator_id: 'u42', ...body } });

async function fillForm(fields: { source_url: string; file_name: string; type?: 'csv' | 'excel' | 'jsonl' | 'parquet'; page_size?: number }) {
  const form = page.locator('#submit-form');
  await form.getByLabel('Source URL').fill(fields.source_url);
  await form.getByLabel('Operator').fill('u42');
  await form.getByLabel('Type').selectOption(fields.type ?? 'csv');
  await form.getByLabel('File name').fill(fields.file_name);
  await form.getByLabel('Page size').fill(String(fields.page_size ?? 100));
}

beforeAll(async () => {
  buildConsole();
  browser = await launchChromium();
  env = await startTestEnv({ WS_PROGRESS_INTERVAL_MS: '100' });
  ({ api_key: key } = await env.createProject({ source_hosts: ['127.0.0.1'], max_running_tasks: 4 }));
  context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  page = await context.newPage();
  page.on('request', (r) => seen.push(r.url()));
  page.on('websocket', (ws) => seen.push(ws.url()));
  page.on('framenavigated', (f) => seen.push(f.url()));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
});

afterAll(async () => {
  await browser?.close();
  await closeSources();
  await env?.close();
});

describe('web console', () => {
  it('serves the page with a strict policy, and signs in with a key kept out of the URL', async () => {
    const res = await fetch(`${env.base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const asset = /\/console\/app\.[0-9a-f]{12}\.js/.exec(await res.text())![0];
    expect((await fetch(`${env.base}${asset}`)).headers.get('cache-control')).toContain('immutable');

    const src = await source({ total: 30 });
    const done = await env.waitForTask((await submitVia({ source_url: src.url, file_name: 'existing-orders' })).json.task_id, key);
    expect(done.status).toBe('succeeded');
    const broken = await source({ total: 10, intercept: (r) => (r.pageSize > 1 ? { status: 400, body: '{"message":"no such month"}' } : undefined) });
    expect((await env.waitForTask((await submitVia({ source_url: broken.url, file_name: 'broken-orders' })).json.task_id, key)).status).toBe('failed');

    await page.goto(`${env.base}/`);
    await page.getByLabel('Project API key').fill('dck_not-a-real-key-000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 10_000 }).toContain('not accepted');
    expect(problems.splice(0)).toEqual(['Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
    await page.getByLabel('Project API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await row('existing-orders').getByText('Succeeded').waitFor();
    expect(await row('existing-orders').textContent()).toContain('30 / 30 rows');
    await page.getByText('Live', { exact: true }).waitFor();
    expect(await row('broken-orders').locator('.task-error').textContent()).toMatch(/source_bad_response.*400/);
  });

  it('takes the key of a WebSocket as the subprotocol bearer.<key>, and never echoes it', async () => {
    const open = (protocols: string[]) =>
      new Promise<{ protocol: string } | { status: number }>((done, fail) => {
        const ws = new WebSocket(`${env.base.replace('http', 'ws')}/v1/ws`, protocols);
        ws.once('open', () => {
          done({ protocol: ws.protocol });
          ws.close();
        });
        ws.once('unexpected-response', (_req, res) => done({ status: res.statusCode ?? 0 }));
        ws.once('error', fail);
      });
    expect(await open(['download-center', `bearer.${key}`])).toEqual({ protocol: 'download-center' });
    expect(await open(['download-center', 'bearer.dck_wrong'])).toEqual({ status: 401 });
  });

  it('previews the first rows as the template lays them out (csv and xlsx)', async () => {
    await page.getByRole('button', { name: '+ New export' }).click();
    const csv = await source({ total: 50 });
    await fillForm({ source_url: csv.url, file_name: 'preview-csv' });
    await page.getByRole('button', { name: 'Preview' }).click();
    const table = page.locator('.preview table');
    await expect.poll(() => table.locator('tr').count(), { timeout: 10_000 }).toBe(21);
    expect(await table.locator('tr').first().locator('td').allTextContents()).toEqual(['id', 'name', 'amount', 'note']);
    expect(await table.locator('tr').nth(2).locator('td').allTextContents()).toEqual(['2', defaultRow(1).name, String(defaultRow(1).amount), '']);
    expect(await page.locator('.preview').textContent()).toContain('First 20 of 50 rows');

    // The CSV dialect: semicolons (row 1's note holds a comma and quotes), then a tab-separated .tsv
    // with LF and no BOM; the form sends exactly what was chosen.
    const form = page.locator('#submit-form');
    await form.getByLabel('Delimiter (CSV)').selectOption(';');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => table.locator('tr').nth(1).locator('td').allTextContents(), { timeout: 10_000 }).toEqual(['1', defaultRow(0).name, String(defaultRow(0).amount), defaultRow(0).note]);
    await form.getByLabel('Delimiter (CSV)').selectOption('\t');
    await form.getByLabel('Line ending (CSV)').selectOption('lf');
    await form.getByLabel('Byte order mark (CSV)').selectOption('no');
    await form.getByLabel('Time zone (CSV, Excel)').fill('Asia/Shanghai');
    const sent = page.waitForRequest((r) => r.url().endsWith('/v1/tasks/preview'));
    await page.getByRole('button', { name: 'Preview' }).click();
    expect(JSON.parse((await sent).postData()!)).toMatchObject({ csv_delimiter: '\t', csv_line_ending: 'lf', csv_bom: false, time_zone: 'Asia/Shanghai' });
    await page.locator('.preview a[download="preview-csv.tsv"]').waitFor();
    expect(await table.locator('tr').nth(1).locator('td').allTextContents()).toEqual(['1', defaultRow(0).name, String(defaultRow(0).amount), defaultRow(0).note]);
    expect(await form.getByLabel('Filter on the header (Excel)').isDisabled()).toBe(true);
    // Back to the project's dialect: the later CSV exports are read with its BOM and CR LF.
    await form.getByLabel('Delimiter (CSV)').selectOption('');
    await form.getByLabel('Line ending (CSV)').selectOption('');
    await form.getByLabel('Byte order mark (CSV)').selectOption('');
    await form.getByLabel('Time zone (CSV, Excel)').fill('');

    // JSON Lines: the same table from the lines; compression is offered for it, not for Parquet.
    await fillForm({ source_url: csv.url, file_name: 'preview-jsonl', type: 'jsonl' });
    const compression = page.locator('#submit-form').getByLabel('Compression (CSV, JSON Lines)');
    expect(await compression.isDisabled()).toBe(false);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('.preview a[download$=".jsonl"]').waitFor();
    expect(await table.locator('tr').first().locator('td').allTextContents()).toEqual(['id', 'name', 'amount', 'note']);
    expect(await table.locator('tr').nth(2).locator('td').allTextContents()).toEqual(['2', defaultRow(1).name, String(defaultRow(1).amount), '']);
    await page.locator('#submit-form').getByLabel('Type').selectOption('parquet');
    expect(await compression.isDisabled()).toBe(true);

    const xlsx = await source({ total: 40, row: rechargeRow, firstExtras: { template: styledRechargeTemplate } });
    await fillForm({ source_url: xlsx.url, file_name: 'preview-xlsx', type: 'excel' });
    // Excel: the header's filter is on unless unchecked; CSV's dialect is not offered.
    expect(await page.locator('#submit-form').getByLabel('Delimiter (CSV)').isDisabled()).toBe(true);
    await page.locator('#submit-form').getByLabel('Filter on the header (Excel)').uncheck();
    const excelSent = page.waitForRequest((r) => r.url().endsWith('/v1/tasks/preview'));
    await page.getByRole('button', { name: 'Preview' }).click();
    const excelBody = JSON.parse((await excelSent).postData()!) as Record<string, unknown>;
    expect([excelBody.autofilter, excelBody.csv_delimiter]).toEqual([false, undefined]);
    await page.locator('#submit-form').getByLabel('Filter on the header (Excel)').check();
    const merged = page.locator('.preview td', { hasText: /^充值$/ });
    await merged.waitFor();
    expect(await merged.getAttribute('colspan')).toBe('6');
    expect(await page.locator('.preview td', { hasText: /^来源方式$/ }).getAttribute('rowspan')).toBe('3');

    // Charts typed into the form: a malformed one is refused by the form itself; a good one is drawn from the preview's rows.
    const charts = page.locator('#submit-form').getByLabel('Charts (Excel, JSON)');
    await charts.fill('[{"type": "radar", "category": "source", "series": ["pay_money"]}]');
    await page.getByRole('button', { name: 'Preview' }).click();
    expect(await charts.evaluate((el) => (el as unknown as { validationMessage: string }).validationMessage)).toBe('chart 1: type is one of column, bar, line, pie, area');
    await charts.fill('[{"type": "column", "title": "Paid by source", "category": "source", "series": ["pay_money", "recharge_money"]}]');
    await page.getByRole('button', { name: 'Preview' }).click();
    const svg = page.locator('.preview svg.chart');
    await svg.waitFor();
    expect(await svg.locator('.chart-title').textContent()).toBe('Paid by source');
    // 20 rows of two series, and the legend's two swatches, named by the columns' titles.
    expect(await svg.locator('rect').count()).toBe(42);
    expect(await svg.locator('.legend text').allTextContents()).toEqual(['付款金额', '充值金额']);
    await charts.fill('');

    // The same chart through the chart rows: sent as the task's charts and drawn alike (a line this time);
    // with the JSON box filled too the form refuses both, as it does two templates.
    await form.getByRole('button', { name: '+ Chart' }).click();
    const chartRow = form.getByRole('group', { name: 'Chart 1' });
    await chartRow.getByLabel('Chart type').selectOption('line');
    await chartRow.getByLabel('Chart title').fill('Paid by source, as a line');
    await chartRow.getByLabel('Category column').fill('source');
    await chartRow.getByLabel('Series columns (comma-separated)').fill(' pay_money ,recharge_money, ');
    await chartRow.getByLabel('Place').selectOption('below');
    const chartSent = page.waitForRequest((r) => r.url().endsWith('/v1/tasks/preview'));
    await page.getByRole('button', { name: 'Preview' }).click();
    expect((JSON.parse((await chartSent).postData()!) as Record<string, unknown>).charts).toEqual([
      { type: 'line', title: 'Paid by source, as a line', category: 'source', series: ['pay_money', 'recharge_money'], place: 'below' },
    ]);
    await expect.poll(() => svg.locator('.chart-title').textContent(), { timeout: 10_000 }).toBe('Paid by source, as a line');
    const lines = svg.locator('polyline');
    expect(await lines.count()).toBe(2);
    expect((await lines.first().getAttribute('points'))!.split(' ')).toHaveLength(20);
    expect(await svg.locator('.legend text').allTextContents()).toEqual(['付款金额', '充值金额']);
    // Exported, the workbook holds that chart natively.
    const taskSent = page.waitForRequest((r) => r.url().endsWith('/v1/tasks') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    expect((JSON.parse((await taskSent).postData()!) as Record<string, unknown>).charts).toEqual([expect.objectContaining({ type: 'line', series: ['pay_money', 'recharge_money'] })]);
    await row('preview-xlsx').getByText('Succeeded').waitFor();
    const [workbook] = await Promise.all([page.waitForEvent('download'), row('preview-xlsx').getByRole('link', { name: /Download preview-xlsx\.xlsx/ }).click()]);
    const chartXml = (await zipEntries(readFileSync((await workbook.path())!))).get('xl/charts/chart1.xml')!.toString('utf8');
    expect(chartXml).toContain('<c:lineChart>');
    expect(chartXml).toContain('Paid by source, as a line');
    expect(chartXml.match(/<c:ser>/g)).toHaveLength(2);
    await charts.fill('[{"type": "pie", "category": "source", "series": ["pay_money"]}]');
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 10_000 }).toBe('Give the charts either as chart rows or as JSON, not both.');
    await charts.fill('');
    await chartRow.getByRole('button', { name: 'Remove chart' }).click();
    expect(await form.locator('.chart-row').count()).toBe(0);
    await page.setViewportSize({ width: 390, height: 844 }); // the wide table scrolls in its frame, not the page
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('submits an export, moves its bar to 100 % live, and downloads the file as the source has it', async () => {
    const navigations = seen.filter((u) => u.startsWith(env.base) && !u.includes('/console/') && !u.includes('/v1/')).length;
    const total = 1500;
    const slow = await source({ total, delayMs: (r) => (r.pageSize === 1 ? 0 : 250) });
    await fillForm({ source_url: slow.url, file_name: 'live-orders' });
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const bar = row('live-orders').getByRole('progressbar');
    await bar.waitFor();
    const values = new Set<number>();
    for (let i = 0; i < 600; i++) {
      values.add(Number(await bar.getAttribute('aria-valuenow')));
      if (values.has(100)) break;
      await page.waitForTimeout(50);
    }
    expect(values.has(100)).toBe(true);
    expect([...values].some((v) => v > 0 && v < 100)).toBe(true); // moved through the middle, live
    await row('live-orders').getByText('Succeeded').waitFor();
    expect(seen.filter((u) => u.startsWith(env.base) && !u.includes('/console/') && !u.includes('/v1/')).length).toBe(navigations); // no reload

    const [download] = await Promise.all([page.waitForEvent('download'), row('live-orders').getByRole('link', { name: /Download live-orders\.csv/ }).click()]);
    expect(download.suggestedFilename()).toBe('live-orders.csv');
    const body = readFileSync((await download.path())!, 'utf8').slice(1);
    const records = parse(body, { columns: true }) as Record<string, string>[];
    expect(records).toHaveLength(total);
    records.forEach((r, i) => expect(r).toEqual({ id: String(defaultRow(i).id), name: defaultRow(i).name, amount: String(defaultRow(i).amount), note: defaultRow(i).note }));

    // The row's record of downloads: that one, through its signed link, from this browser's address.
    await row('live-orders').getByText('Downloads', { exact: true }).click();
    const record = row('live-orders').locator('.download-list li');
    await record.first().waitFor();
    expect(await record.count()).toBe(1);
    expect(await record.first().textContent()).toMatch(/Link.*127\.0\.0\.1/);
  });

  it('cancels a slow export from its row', async () => {
    const slow = await source({ total: 100_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 1000) });
    await fillForm({ source_url: slow.url, file_name: 'slow-orders', page_size: 1000 });
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await row('slow-orders').getByText('Running').waitFor();
    await row('slow-orders').getByRole('button', { name: 'Cancel' }).click();
    await row('slow-orders').getByText('Cancelled').waitFor();
    const id = await row('slow-orders').getAttribute('data-task-id');
    expect((await env.api('GET', `/v1/tasks/${id}`, { token: key })).json.status).toBe('cancelled');
    await row('slow-orders').getByRole('button', { name: 'Retry' }).waitFor();
  });

  it('filters by operator and status', async () => {
    await page.getByLabel('Status').selectOption('cancelled');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('li.task').count()).toBe(1);
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByRole('search').getByLabel('Operator').fill('nobody');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No tasks match.').waitFor();
    await page.getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => page.locator('li.task').count()).toBe(5);
  });

  it('switches between English and 中文', async () => {
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
    await page.getByRole('button', { name: '中文' }).click();
    await page.getByRole('heading', { name: '任务' }).waitFor();
    expect(await row('existing-orders').textContent()).toContain('已完成');
    expect(await page.getByRole('heading', { name: 'Tasks' }).count()).toBe(0);
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Tasks' }).waitFor();
  });

  it('shows a task submitted elsewhere as it runs, fits a phone, pauses and resumes, manages schedules, charts usage, never puts the key in a URL', async () => {
    const slow = await source({ total: 200_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 300) });
    const other = (await submitVia({ source_url: slow.url, file_name: 'orders-2026-11', type: 'excel', page_size: 1000 })).json.task_id;
    await expect.poll(async () => Number(await row('orders-2026-11').getByRole('progressbar').getAttribute('aria-valuenow')), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Close' }).click();
    await page.screenshot({ path: join(shots, 'console-desktop.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: '中文' }).click();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(shots, 'console-phone.png') });
    await page.getByRole('button', { name: 'English' }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
    const badge = () => row('orders-2026-11').locator('.badge').textContent();
    await row('orders-2026-11').getByRole('button', { name: 'Pause' }).click();
    await expect.poll(badge, { timeout: 20_000 }).toBe('Paused');
    await row('orders-2026-11').getByRole('button', { name: 'Resume' }).click();
    await expect.poll(badge).toMatch(/Queued|Running/);
    await row('orders-2026-11').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(badge, { timeout: 20_000 }).toBe('Cancelled');
    expect((await env.api('GET', `/v1/tasks/${other}`, { token: key })).json.status).toBe('cancelled');

    const quick = await source({ total: 5 });
    expect((await env.api('POST', '/v1/schedules', { token: key, body: { every: '1h', source_url: quick.url, operator_id: 'u42', file_name: 'hourly-orders' } })).status).toBe(201);
    await page.getByRole('link', { name: 'Schedules' }).click();
    const schedule = page.locator('li.schedule', { hasText: 'hourly-orders' });
    await schedule.getByRole('button', { name: 'Pause' }).click();
    await schedule.locator('.badge', { hasText: 'Paused' }).waitFor();
    await schedule.getByRole('button', { name: 'Resume' }).click();
    await schedule.locator('.badge', { hasText: 'Active' }).waitFor();
    const tally = async () => {
      const counts: Record<string, number> = (await env.api('GET', '/v1/tasks/counts', { token: key })).json.counts;
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      return { total, busy: (counts.queued ?? 0) + (counts.running ?? 0) + (counts.paused ?? 0) };
    };
    const before = await tally();
    await schedule.getByRole('button', { name: 'Run now' }).click();
    await page.getByText('A run was started.').waitFor();
    page.once('dialog', (d) => void d.accept());
    await schedule.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No schedules').waitFor();

    // Usage: the last 30 UTC days as bars, today's as tall as the API's figure says, by tasks then rows.
    // "Run now" makes one more task, whose rows count when it ends: wait for it, or the figure moves under the page.
    await expect.poll(tally, { timeout: 20_000 }).toEqual({ total: before.total + 1, busy: 0 });
    const today = new Date().toISOString().slice(0, 10);
    const usage = (await env.api('GET', `/v1/usage?from=${today}&to=${today}`, { token: key })).json;
    await page.getByRole('link', { name: 'Usage' }).click();
    const chart = page.getByRole('img', { name: 'Tasks per day, the last 30 days (UTC)' });
    await chart.waitFor();
    expect(await chart.locator('rect.usage-bar').count()).toBe(30);
    // Today's bar on the page, not in the chart by its name: the name changes with the figure shown.
    const bar = page.locator(`rect.usage-bar[data-date="${today}"]`);
    expect(Number(await bar.getAttribute('data-value'))).toBe(usage.days[0].tasks);
    expect(Number(await bar.getAttribute('height'))).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Rows', exact: true }).click();
    await page.getByRole('img', { name: 'Rows per day, the last 30 days (UTC)' }).waitFor();
    expect(Number(await bar.getAttribute('data-value'))).toBe(usage.days[0].rows);
    expect(usage.days[0].rows).toBeGreaterThan(0);
    expect(await page.locator('.usage-totals').textContent()).toContain('Stored now');

    expect(seen.length).toBeGreaterThan(5);
    expect(seen.filter((u) => u.includes(key) || u.includes(encodeURIComponent(key)))).toEqual([]);
    expect(await page.evaluate<string>('location.href')).not.toContain(key);
    expect(problems).toEqual([]);
    if (process.env.DC_SCREENSHOTS) for (const f of ['console-desktop.png', 'console-phone.png']) copyFileSync(join(shots, f), resolve('docs', f));
  });
});
