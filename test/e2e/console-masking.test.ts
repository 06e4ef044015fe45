// The submit form's columns and masks (docs/console.md#what-it-does) in a real browser
// against the real service: columns with a preset mask and a keep_start / keep_end mask make the
// preview and the submitted export masked; the project's mask_columns apply to a column the form
// leaves unmasked.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, launchChromium } from '../support/browser.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';
import { fetchListed } from '../support/xlsx.js';

let env: TestEnv;
let key: string;
let browser: Browser;
let page: Page;
const problems: string[] = [];
const { source, closeSources } = sourcePool();
const row = (i: number) => ({ id: i + 1, phone: `139${String(i).padStart(8, '0')}`, name: `张三丰${i}`, card: `6222${String(i).padStart(15, '0')}` });

beforeAll(async () => {
  buildConsole();
  browser = await launchChromium();
  env = await startTestEnv();
  ({ api_key: key } = await env.createProject({ source_hosts: ['127.0.0.1'], mask_columns: { card: 'bank_card' } }));
  page = await (await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } })).newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${env.base}/`);
  await page.getByLabel('Project API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: '+ New export' }).click();
});

afterAll(async () => {
  await browser?.close();
  await closeSources();
  await env?.close();
});

async function column(n: number, name: string, mask: string, keep?: [number, number]) {
  await page.getByRole('button', { name: '+ Column' }).click();
  const group = page.getByRole('group', { name: `Column ${n}` });
  await group.getByLabel('Column (source key)').fill(name);
  if (mask) await group.getByRole('combobox', { name: 'Mask' }).selectOption(mask);
  if (keep) {
    await group.getByRole('spinbutton', { name: 'Keep first' }).fill(String(keep[0]));
    await group.getByRole('spinbutton', { name: 'Keep last' }).fill(String(keep[1]));
  }
}

describe('columns and masks in the submit form', () => {
  it('previews and exports masked columns; the project\'s mask applies to a column the form leaves alone', async () => {
    const src = await source({ total: 30, row });
    const form = page.locator('#submit-form');
    await form.getByLabel('Source URL').fill(src.url);
    await form.getByLabel('Operator').fill('u42');
    await form.getByLabel('File name').fill('masked-from-console');
    await form.getByLabel('Page size').fill('100');
    await column(1, 'id', '');
    await column(2, 'phone', 'phone');
    await column(3, 'name', 'keep', [2, 1]);
    await column(4, 'card', '');
    expect(await page.getByRole('group', { name: 'Column 2' }).getByRole('spinbutton', { name: 'Keep first' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const table = page.locator('.preview table');
    await expect.poll(() => table.locator('tr').count(), { timeout: 10_000 }).toBe(21);
    expect(await table.locator('tr').first().locator('td').allTextContents()).toEqual(['id', 'phone', 'name', 'card']);
    expect(await table.locator('tr').nth(1).locator('td').allTextContents()).toEqual(['1', '139****0000', '张三*0', '622200*********0000']);

    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const said = page.locator('#submit-form + p.ok');
    await said.waitFor();
    const id = /tsk_\w+/.exec((await said.textContent()) ?? '')?.[0];
    expect(id).toBeDefined();
    const task = await env.waitForTask(id!, key);
    expect(task.status).toBe('succeeded');
    const csv = (await fetchListed(task.files[0])).toString('utf8');
    expect(csv).toContain('3,139****0002,张三*2,622200*********0002');
    expect(csv).not.toContain('13900000002');
    expect(problems).toEqual([]);
  });
});
