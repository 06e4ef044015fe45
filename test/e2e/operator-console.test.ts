// The operator's center (docs/console.md#the-operators-center) framed by a business system's page on
// another origin (docs/embedding.md), in Chromium against the real service: the operator's tasks
// live, a download, nothing of another operator, the project's embed_origins deciding who may
// frame it (docs/adr/0030-embedding-the-operator-center.md), the ended page after a revoke, and the
// token in no URL the browser requested, no Referer it sent and no line the service logged.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs, log } from '../../platform/logger.js';
import { buildConsole, launchChromium } from '../support/browser.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let project: { project_id: string; api_key: string };
let browser: Browser;
let listed: HostPage;
let unlisted: HostPage;
const { source, closeSources } = sourcePool();
const logged: string[] = [];
let releaseLogs: (() => void) | undefined;

/** A business system's page: an iframe of the center, at `/?src=<frame url>` kept server side by id. */
interface HostPage {
  origin: string;
  frame(url: string): string;
  close(): Promise<void>;
}
async function hostPage(): Promise<HostPage> {
  const frames = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const src = frames.get(req.url ?? '');
    if (!src) return void res.writeHead(404).end();
    const attr = src.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>ERP</title><h1>ERP</h1><iframe id="center" title="Downloads" src="${attr}" style="width:100%;height:700px;border:0"></iframe>`);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    frame: (url) => {
      const path = `/page-${frames.size}`;
      frames.set(path, url);
      return `${origin}${path}`;
    },
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

const session = async (operator_id: string, permissions: string[] = []) => {
  const res = await env.api('POST', '/v1/operator-sessions', { token: project.api_key, body: { operator_id, permissions, locale: 'en' } });
  expect(res.status).toBe(201);
  return { ...res.json, url: `${env.base}/operator#token=${res.json.token}` } as { session_id: string; token: string; url: string };
};
const submit = async (operator_id: string, body: Record<string, unknown>) => (await env.api('POST', '/v1/tasks', { token: project.api_key, body: { operator_id, ...body } })).json.task_id as string;

/** Opens a host page; returns it, the center's frame, and every URL the browser requested. */
async function openHost(host: HostPage, url: string, width = 1280) {
  const page = await browser.newPage({ viewport: { width, height: 900 }, acceptDownloads: true });
  const requested: string[] = [];
  const referers: string[] = [];
  page.on('request', (r) => {
    requested.push(r.url());
    const referer = r.headers().referer;
    if (referer) referers.push(referer);
  });
  page.on('websocket', (ws) => requested.push(ws.url()));
  await page.goto(host.frame(url));
  const frame = () => page.frames().find((f) => f !== page.mainFrame());
  await expect.poll(() => frame()?.url() ?? '').toMatch(/\/operator$|^chrome-error:/);
  return { page, frame: frame()!, requested, referers };
}
const row = (f: Frame, name: string) => f.locator('li.task', { hasText: name });

beforeAll(async () => {
  buildConsole();
  browser = await launchChromium();
  env = await startTestEnv({ WS_PROGRESS_INTERVAL_MS: '100' });
  // Every request line the service logs while the browser works, to look for the token in them.
  releaseLogs = captureLogs((line) => logged.push(line));
  log.level = 'info';
  [listed, unlisted] = [await hostPage(), await hostPage()];
  project = await env.createProject({ source_hosts: ['127.0.0.1'] });
  const set = await env.api('PATCH', `/v1/projects/${project.project_id}`, { token: ADMIN, body: { embed_origins: [listed.origin] } });
  expect(set.json.embed_origins).toEqual([listed.origin]);
});

afterAll(async () => {
  releaseLogs?.();
  log.level = 'warn';
  await browser?.close();
  await listed?.close();
  await unlisted?.close();
  await closeSources();
  await env?.close();
});

describe("the operator's center, embedded", () => {
  let page: Page;
  let frame: Frame;
  let requested: string[];
  let referers: string[];
  let alice: Awaited<ReturnType<typeof session>>;
  let bobs: string;

  it('is framed by a listed origin: the operator sees its own tasks only, live, and downloads a file', async () => {
    const quick = await source({ total: 20 });
    bobs = await submit('bob', { source_url: quick.url, file_name: 'bobs-orders' });
    await env.waitForTask(bobs, project.api_key);
    alice = await session('alice', ['cancel']);
    ({ page, frame, requested, referers } = await openHost(listed, alice.url));
    await frame.getByRole('heading', { name: 'My downloads' }).waitFor();
    await frame.getByText('Live', { exact: true }).waitFor();
    expect(frame.url()).toBe(`${env.base}/operator`); // the token left the address bar at once
    expect(await frame.getByText('Signed in as alice').count()).toBe(1);
    // Nothing of the project: no submit form, no schedules, no filters, no sign-out of a key.
    for (const name of ['New export', 'Sign out', 'Apply']) expect(await frame.getByRole('button', { name }).count()).toBe(0);
    expect(await frame.getByRole('link', { name: 'Schedules' }).count()).toBe(0);
    expect(await frame.locator('form, input, select').count()).toBe(0);

    const slow = await source({ total: 1500, delayMs: (r) => (r.pageSize === 1 ? 0 : 250) });
    const lists = () => requested.filter((u) => u.startsWith(`${env.base}/v1/tasks?`)).length;
    const listsBefore = lists();
    const bobsLive = await submit('bob', { source_url: slow.url, file_name: 'bobs-live-orders', page_size: 100 });
    const mine = await submit('alice', { source_url: slow.url, file_name: 'alices-orders', page_size: 100 });
    const bar = row(frame, 'alices-orders').getByRole('progressbar');
    await bar.waitFor();
    await row(frame, 'alices-orders').getByRole('button', { name: 'Cancel' }).waitFor(); // permitted
    expect(await row(frame, 'alices-orders').getByRole('button', { name: 'Pause' }).count()).toBe(0); // not permitted
    const values = new Set<number>();
    for (let i = 0; i < 600 && !values.has(100); i++) {
      values.add(Number(await bar.getAttribute('aria-valuenow')));
      await page.waitForTimeout(50);
    }
    expect([...values].some((v) => v > 0 && v < 100)).toBe(true); // moved through the middle, live
    await row(frame, 'alices-orders').getByText('Succeeded').waitFor();
    // The task appeared and moved by the WebSocket alone: the page never re-read its list meanwhile.
    expect(requested.some((u) => u === `${env.base.replace(/^http/, 'ws')}/v1/ws`)).toBe(true);
    expect(lists() - listsBefore).toBe(0);
    await env.waitForTask(bobsLive, project.api_key);
    expect(await row(frame, 'bobs-live-orders').count()).toBe(0); // another operator's task, live or not

    const [download] = await Promise.all([page.waitForEvent('download'), row(frame, 'alices-orders').getByRole('link', { name: /Download alices-orders\.csv/ }).click()]);
    const file = await fetch(`${env.base}/v1/tasks/${mine}/download`, { headers: { Authorization: `Bearer ${project.api_key}` } });
    expect(file.status).toBe(200);
    expect(readFileSync((await download.path())!)).toEqual(Buffer.from(await file.arrayBuffer()));

    expect(await row(frame, 'bobs-orders').count()).toBe(0);
    const status = await frame.evaluate<number>(`fetch('/v1/tasks/${bobs}', { headers: { Authorization: 'Bearer ' + sessionStorage.getItem('dc.operator') } }).then((r) => r.status)`);
    expect(status).toBe(404);
  });

  it('fits a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await frame.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
  });

  it('shows the ended-session page once the session is revoked', async () => {
    expect((await env.api('DELETE', `/v1/operator-sessions/${alice.session_id}`, { token: project.api_key })).status).toBe(204);
    await frame.getByRole('heading', { name: 'This session has ended' }).waitFor({ timeout: 10_000 });
    expect(await frame.evaluate<string | null>("sessionStorage.getItem('dc.operator')")).toBeNull();
  });

  it('cannot be framed by an origin the project does not list', async () => {
    const carol = await session('carol');
    // The two steps' policies: the bootstrap shows nothing, so anyone may frame it; the center only the project's origins.
    const boot = await fetch(`${env.base}/operator`);
    expect(boot.headers.get('content-security-policy')).not.toContain('frame-ancestors');
    expect(boot.headers.get('referrer-policy')).toBe('no-referrer');
    const post = (token: string) => fetch(`${env.base}/operator`, { method: 'POST', body: new URLSearchParams({ token }) });
    const center = await post(carol.token);
    expect(center.headers.get('content-security-policy')).toContain(`frame-ancestors ${listed.origin}`);
    expect(await center.text()).toContain('<meta name="dc-operator" content="carol">');
    expect(await (await post('dco_not-a-real-token-0000')).text()).toContain('<meta name="dc-step" content="ended">');

    const other = await openHost(unlisted, carol.url);
    await expect.poll(() => other.frame.url()).toMatch(/^chrome-error:/);
    expect(await other.frame.getByRole('heading', { name: 'My downloads' }).count()).toBe(0);
    requested.push(...other.requested);
    referers.push(...other.referers);
    await other.page.close();
  });

  it('puts the token in no URL the browser requested, no Referer it sent, no line the service logged', () => {
    expect(requested.some((u) => u.startsWith(`${env.base}/v1/tasks`))).toBe(true);
    expect(requested.filter((u) => u.includes('dco_'))).toEqual([]);
    // The center sends no Referer at all (Referrer-Policy: no-referrer); only the host page's own
    // request for the frame carries one, its own origin.
    expect(referers.some((r) => r.startsWith(listed.origin))).toBe(true);
    expect(referers.filter((r) => r.includes('dco_') || r.startsWith(env.base))).toEqual([]);
    expect(logged.some((l) => /"method":"POST","route":"\/operator\/?"/.test(l))).toBe(true); // the lines were caught
    expect(logged.filter((l) => l.includes('dco_'))).toEqual([]);
  });
});
