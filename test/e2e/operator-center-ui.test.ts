// The operator's center as its operator sees it (docs/console.md#the-operators-center), in Chromium
// against the real service: the session's locale (zh-CN, en) decides every word on the page — the
// list, the status labels, the actions, the download links, the ended-session page — and it fits a
// phone (390×844) and a laptop (1366×768) with no sideways scroll and a download link in reach; and
// a session that expires while its page is open turns it into the ended-session page.
// `npm run screenshots` (DC_SCREENSHOTS=1) also writes docs/operator-laptop.png (en) and
// docs/operator-phone.png (zh-CN).
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, launchChromium } from '../support/browser.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let project: { project_id: string; api_key: string };
let browser: Browser;
let running: string;
let expiring: Page;
const { source, closeSources } = sourcePool();
const shots = mkdtempSync(join(tmpdir(), 'dc-operator-'));
const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 768 };

const submit = async (body: Record<string, unknown>) => (await env.api('POST', '/v1/tasks', { token: project.api_key, body: { operator_id: 'li.wei', ...body } })).json.task_id as string;

/** Opens the session's url as a top-level page and waits for the center (its heading in `lang`). */
async function openCenter(locale: 'zh-CN' | 'en', heading: string, expires_in = 3600): Promise<{ page: Page; sessionId: string; problems: string[] }> {
  const res = await env.api('POST', '/v1/operator-sessions', { token: project.api_key, body: { operator_id: 'li.wei', permissions: ['cancel', 'retry', 'pause'], locale, expires_in } });
  expect(res.status).toBe(201);
  const page = await browser.newPage({ viewport: LAPTOP, acceptDownloads: true });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));
  await page.goto(`${env.base}/operator#token=${res.json.token}`);
  await page.getByRole('heading', { name: heading }).waitFor();
  return { page, sessionId: res.json.session_id, problems };
}

const row = (page: Page, name: string) => page.locator('li.task', { hasText: name });
/** The page's words without its data: task names, codes and ids, file types. */
const shown = (page: Page) =>
  page.evaluate<string>(`(() => {
    const app = document.getElementById('app').cloneNode(true);
    for (const e of app.querySelectorAll('.task-name, code, .type')) e.remove();
    return app.textContent;
  })()`);
const sideways = (page: Page) => page.evaluate<number>('document.scrollingElement.scrollWidth - window.innerWidth');

/** At this size: no sideways scroll, the download link inside the viewport, and a click on it downloads the file. */
async function fitsWith(page: Page, size: { width: number; height: number }, link: RegExp, file: string) {
  await page.setViewportSize(size);
  expect(await sideways(page)).toBeLessThanOrEqual(0);
  const a = page.getByRole('link', { name: link });
  await a.scrollIntoViewIfNeeded();
  const box = (await a.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(size.width);
  expect(box.y + box.height).toBeLessThanOrEqual(size.height);
  const [download] = await Promise.all([page.waitForEvent('download'), a.click()]);
  expect(download.suggestedFilename()).toBe(file);
  await download.path();
}

/** The running task's bar has moved, so a picture of it shows progress. */
const moving = (page: Page, name: string) =>
  expect.poll(async () => Number(await row(page, name).getByRole('progressbar').getAttribute('aria-valuenow')), { timeout: 60_000 }).toBeGreaterThan(0);

beforeAll(async () => {
  buildConsole();
  browser = await launchChromium();
  env = await startTestEnv({ WS_PROGRESS_INTERVAL_MS: '200' });
  project = await env.createProject({ source_hosts: ['127.0.0.1'] });
  // The shortest session there is (60 s), opened first so its end comes while the others run.
  ({ page: expiring } = await openCenter('en', 'My downloads', 60));
  const quick = await source({ total: 1500 });
  await env.waitForTask(await submit({ source_url: quick.url, file_name: 'orders-2026-10' }), project.api_key);
  const broken = await source({ total: 10, intercept: (r) => (r.pageSize > 1 ? { status: 400, body: '{"message":"no such month"}' } : undefined) });
  expect((await env.waitForTask(await submit({ source_url: broken.url, file_name: 'refunds-2026-13' }), project.api_key)).status).toBe('failed');
  const slow = await source({ total: 200_000, delayMs: (r) => (r.pageSize === 1 ? 0 : 400) });
  running = await submit({ source_url: slow.url, file_name: 'orders-2026-11', page_size: 1000 });
  await env.waitForTask(running, project.api_key, (t) => t.status === 'running');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await closeSources();
  await env?.close();
});

describe("the operator's center in the session's language, on a laptop and a phone", () => {
  it('speaks Chinese for a zh-CN session: list, statuses, actions, download links; fits both widths', async () => {
    const { page, sessionId, problems } = await openCenter('zh-CN', '我的下载');
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('zh-CN');
    expect(await page.title()).toBe('下载中心');
    await page.getByText('当前用户 li.wei').waitFor();
    await page.getByText('实时', { exact: true }).waitFor();
    await page.getByRole('button', { name: '刷新' }).waitFor();
    await row(page, 'orders-2026-10').locator('.badge', { hasText: '已完成' }).waitFor();
    await row(page, 'refunds-2026-13').locator('.badge', { hasText: '失败' }).waitFor();
    await row(page, 'refunds-2026-13').getByRole('button', { name: '重试' }).waitFor();
    await row(page, 'orders-2026-11').locator('.badge', { hasText: '进行中' }).waitFor();
    await row(page, 'orders-2026-11').getByRole('button', { name: '暂停' }).waitFor();
    await row(page, 'orders-2026-11').getByRole('button', { name: '取消' }).waitFor();
    expect(await row(page, 'orders-2026-10').textContent()).toMatch(/1,500 \/ 1,500 行/);
    // The header says whose page it is; the rows, all the operator's own, do not repeat it.
    expect(await page.locator('li.task').allTextContents()).not.toContainEqual(expect.stringContaining('li.wei'));
    await moving(page, 'orders-2026-11');
    await row(page, 'refunds-2026-13').getByText('数据源返回了错误或无法识别的内容。').waitFor();
    // Not one English word of the page's own: no label falls back to the other language. Left out:
    // the data (file names, the operator, ids, error codes) and units.
    expect((await shown(page)).replace(/[\w.-]+\.csv|li\.wei|KiB/g, '')).not.toMatch(/[A-Za-z]{2,}/);

    await fitsWith(page, LAPTOP, /下载 orders-2026-10\.csv/, 'orders-2026-10.csv');
    await fitsWith(page, PHONE, /下载 orders-2026-10\.csv/, 'orders-2026-10.csv');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(shots, 'operator-phone.png') });

    expect((await env.api('DELETE', `/v1/operator-sessions/${sessionId}`, { token: project.api_key })).status).toBe(204);
    await page.getByRole('heading', { name: '会话已结束' }).waitFor({ timeout: 15_000 });
    await page.getByText('链接已过期或已被撤销。请从原来的系统重新打开下载中心。').waitFor();
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    expect(await page.getByRole('heading', { name: 'This session has ended' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('speaks English for an en session, and fits both widths', async () => {
    const { page, sessionId, problems } = await openCenter('en', 'My downloads');
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en');
    expect(await page.title()).toBe('Download Center');
    await page.getByText('Signed in as li.wei').waitFor();
    await row(page, 'orders-2026-10').locator('.badge', { hasText: 'Succeeded' }).waitFor();
    await row(page, 'refunds-2026-13').locator('.badge', { hasText: 'Failed' }).waitFor();
    await row(page, 'refunds-2026-13').getByRole('button', { name: 'Retry' }).waitFor();
    await row(page, 'orders-2026-11').locator('.badge', { hasText: 'Running' }).waitFor();
    await row(page, 'orders-2026-11').getByRole('button', { name: 'Pause' }).waitFor();
    expect((await shown(page)).replace(/li\.wei/g, '')).not.toMatch(/[\u4e00-\u9fff]/);

    await fitsWith(page, PHONE, /Download orders-2026-10\.csv/, 'orders-2026-10.csv');
    await fitsWith(page, LAPTOP, /Download orders-2026-10\.csv/, 'orders-2026-10.csv');
    await moving(page, 'orders-2026-11');
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(shots, 'operator-laptop.png') });

    expect((await env.api('DELETE', `/v1/operator-sessions/${sessionId}`, { token: project.api_key })).status).toBe(204);
    await page.getByRole('heading', { name: 'This session has ended' }).waitFor({ timeout: 15_000 });
    await page.getByText('The link has expired or was revoked.', { exact: false }).waitFor();
    expect(problems).toEqual([]);
    await page.close();
    expect((await env.api('POST', `/v1/tasks/${running}/cancel`, { token: project.api_key })).status).toBe(202);
    if (process.env.DC_SCREENSHOTS) for (const f of ['operator-laptop.png', 'operator-phone.png']) copyFileSync(join(shots, f), resolve('docs', f));
  });

  it('turns into the ended-session page when the session expires while open', async () => {
    await expiring.getByRole('heading', { name: 'This session has ended' }).waitFor({ timeout: 90_000 });
    expect(await expiring.getByRole('heading', { name: 'My downloads' }).count()).toBe(0);
    expect(await expiring.evaluate<string | null>("sessionStorage.getItem('dc.operator')")).toBeNull();
  }, 100_000);
});
