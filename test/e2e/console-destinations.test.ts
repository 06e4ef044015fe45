// The console's destinations page (docs/console.md) in a real browser against the real service and
// a real OpenSSH sshd (test/support/sftp-server.ts) and a SeaweedFS bucket (test/support/
// customer-bucket.ts): an SFTP destination made in the page with its private key read from a file,
// its test showing each step and the host key the server showed, a destination pinned to another
// key failing at host_key and pinned again from the page with the key seen, S3 destinations whose
// test passes or stops at the write a read-only user may not make, deletion, and no secret ever in
// the page or an answer.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, launchChromium } from '../support/browser.js';
import { BUCKET, type CustomerBucket, READER, startCustomerBucket, WRITER } from '../support/customer-bucket.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { type SftpServer, startSftpServer } from '../support/sftp-server.js';

let env: TestEnv;
let server: SftpServer;
let customer: CustomerBucket;
let key: string;
let browser: Browser;
let page: Page;
const problems: string[] = []; // console errors (CSP violations among them) and page errors
const OTHER_FINGERPRINT = `SHA256:${Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '')}`;
const WRONG_PASSWORD = 'never-sent-password-42';

const form = () => page.locator('#destination-form');
const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
const row = (name: string) => page.locator('li.schedule', { has: page.locator('.dst-name', { hasText: exactly(name) }) });
const listed = async () => (await env.api('GET', '/v1/destinations', { token: key })).json.items as Record<string, unknown>[];

beforeAll(async () => {
  buildConsole();
  [env, server, customer] = await Promise.all([startTestEnv(), startSftpServer(), startCustomerBucket()]);
  browser = await launchChromium();
  ({ api_key: key } = await env.createProject({ destination_hosts: ['127.0.0.1'] }));
  page = await (await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 } })).newPage();
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${env.base}/`);
  await page.getByLabel('Project API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Destinations' }).click();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await env?.close();
  await server?.stop();
  await customer?.stop();
});

/** Fills the SFTP fields shared by both ways to sign in. */
async function sftpFields(name: string, fingerprint: string) {
  await page.getByRole('button', { name: '+ New destination' }).click();
  await form().getByLabel('Name', { exact: true }).fill(name);
  await form().getByLabel('Kind').selectOption('sftp');
  await form().getByLabel('SFTP host').fill(server.host);
  await form().getByLabel('Port').fill(String(server.port));
  await form().getByLabel('User name').fill(server.user);
  await form().getByLabel('Directory').fill(server.incoming);
  await form().getByLabel('Host key fingerprint').fill(fingerprint);
}

const chooseKeyFile = () => form().getByLabel('Private key file').setInputFiles({ name: 'id_ed25519', mimeType: 'application/octet-stream', buffer: Buffer.from(server.privateKey) });

/** Runs a destination's test from its row; answers the result box. */
async function runTest(name: string) {
  await row(name).getByRole('button', { name: 'Test' }).click();
  const result = row(name).getByRole('status', { name: `Test of ${name}` });
  await result.waitFor();
  return result;
}

describe('the destinations page', () => {
  it('is #/destinations, empty at first', async () => {
    expect(new URL(page.url()).hash).toBe('#/destinations');
    await expect.poll(() => page.locator('.empty').textContent()).toBe('No destinations yet.');
    expect(await page.getByRole('link', { name: 'Destinations' }).getAttribute('aria-current')).toBe('page');
  });

  it('creates an SFTP destination with a key file, tests it step by step with the host key seen, never showing the key', async () => {
    // A fingerprint not in ssh-keygen's form is refused by the form itself: nothing is sent.
    await sftpFields('partner drop', 'SHA256:too-short');
    await chooseKeyFile();
    await form().getByRole('button', { name: 'Create' }).click();
    expect(await form().getByLabel('Host key fingerprint').evaluate((el) => (el as unknown as { validity: { patternMismatch: boolean } }).validity.patternMismatch)).toBe(true);
    expect(await listed()).toEqual([]);
    await form().getByLabel('Host key fingerprint').fill(server.hostKeySha256);
    await form().getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => page.locator('p.ok').textContent()).toBe('Created partner drop');
    expect(await row('partner drop').locator('.meta').textContent()).toContain(`${server.user}@${server.host}:${server.port}${server.incoming}/`);
    const [made] = await listed();
    expect(made).toMatchObject({ name: 'partner drop', kind: 'sftp', auth: 'private_key', host_key_sha256: server.hostKeySha256, port: server.port });

    const result = await runTest('partner drop');
    expect(await result.locator('.probe-head').textContent()).toMatch(/^Test passed in \d+ ms$/);
    expect(await result.locator('.steps li').allTextContents()).toEqual(['✓ Name lookup', '✓ Connect', '✓ Host key', '✓ Sign in', '✓ Directory', '✓ Write a probe file']);
    expect(await result.locator('.seen-key').textContent()).toBe(`Host key seen: ${server.hostKeySha256} (the pinned one)`);
    expect(await result.getByRole('button', { name: /Pin this fingerprint/ }).count()).toBe(0);
    // The probe file was written on the server's disk and removed again.
    expect(server.files(server.incoming).size).toBe(0);
    const keyLine = server.privateKey.split('\n')[1]!;
    expect(await page.content()).not.toContain(keyLine);
  });

  it('shows a host key that is not the pinned one, and pins it in a new destination from the page', async () => {
    await sftpFields('moved server', OTHER_FINGERPRINT);
    await form().getByLabel('Sign in with').selectOption('password');
    await form().getByLabel('Password', { exact: true }).fill(WRONG_PASSWORD);
    await form().getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => page.locator('p.ok').textContent()).toBe('Created moved server');
    expect(await row('moved server').locator('.meta').textContent()).toContain('Sign in with: Password');

    const result = await runTest('moved server');
    expect(await result.locator('.probe-head').textContent()).toBe('Test failed');
    expect(await result.locator('.steps li').allTextContents()).toEqual(['✓ Name lookup', '✓ Connect', '✗ Host key']);
    expect(await result.locator('.task-error code').textContent()).toBe('host_key');
    expect(await result.locator('.seen-key').textContent()).toBe(`Host key seen: ${server.hostKeySha256} Not the pinned fingerprint.`);

    await result.getByRole('button', { name: 'Pin this fingerprint (new destination)' }).click();
    expect(await form().getByLabel('Host key fingerprint').inputValue()).toBe(server.hostKeySha256);
    expect(await form().getByLabel('SFTP host').inputValue()).toBe(server.host);
    expect(await form().getByLabel('Directory').inputValue()).toBe(`${server.incoming}/`);
    // The secret is typed again: it was never shown back.
    await form().getByLabel('Name', { exact: true }).fill('moved server, pinned');
    await chooseKeyFile();
    await form().getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => page.locator('p.ok').textContent()).toBe('Created moved server, pinned');
    const pinned = await runTest('moved server, pinned');
    expect(await pinned.locator('.probe-head').textContent()).toMatch(/^Test passed/);
    expect(await page.content()).not.toContain(WRONG_PASSWORD);
    expect(JSON.stringify(await listed())).not.toContain(WRONG_PASSWORD);
    // At phone width, with a form and a test's steps open, nothing scrolls sideways.
    await result.getByRole('button', { name: 'Pin this fingerprint (new destination)' }).click();
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'Close' }).click();
  });

  it('creates S3 destinations with the secret as a password field; a test passes, or stops at the write a reader may not make', async () => {
    const s3 = async (name: string, user: { accessKey: string; secretKey: string }) => {
      await page.getByRole('button', { name: '+ New destination' }).click();
      await form().getByLabel('Name', { exact: true }).fill(name);
      await form().getByLabel('S3 endpoint (scheme://host[:port])').fill(customer.s3.endpoint);
      await form().getByLabel('Bucket').fill(BUCKET);
      await form().getByLabel('Prefix').fill('from-console/');
      await form().getByLabel('Access key ID').fill(user.accessKey);
      const secret = form().getByLabel('Secret access key');
      expect(await secret.getAttribute('type')).toBe('password');
      await secret.fill(user.secretKey);
      await form().getByRole('button', { name: 'Create' }).click();
      await expect.poll(() => page.locator('p.ok').textContent()).toBe(`Created ${name}`);
    };
    await s3('warehouse', WRITER);
    const passed = await runTest('warehouse');
    expect(await passed.locator('.probe-head').textContent()).toMatch(/^Test passed in \d+ ms$/);
    expect(await passed.locator('.steps li').allTextContents()).toEqual(['✓ Connect', '✓ Write a probe file', '✓ Remove', '✓ Multipart upload']);
    expect(await passed.locator('.seen-key').count()).toBe(0);
    // The probe object and its multipart upload were removed from the real bucket.
    expect((await customer.objects('from-console/')).size).toBe(0);
    expect(await customer.incomplete('from-console/')).toEqual([]);

    await s3('read only', READER);
    const failed = await runTest('read only');
    expect(await failed.locator('.steps li').allTextContents()).toEqual(['✓ Connect', '✗ Write a probe file']);
    expect(await failed.locator('.task-error code').textContent()).toBe('permission');
    const html = await page.content();
    expect(html).not.toContain(WRITER.secretKey);
    expect(html).not.toContain(READER.secretKey);
  });

  it('deletes destinations, and says so in Chinese too', async () => {
    for (const name of ['read only', 'warehouse', 'moved server, pinned', 'moved server', 'partner drop']) {
      await row(name).getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => row(name).count()).toBe(0);
    }
    expect(await listed()).toEqual([]);
    await page.getByRole('button', { name: '中文' }).click();
    expect(await page.locator('#destinations-title').textContent()).toBe('投递目的地');
    await page.getByRole('button', { name: 'English' }).click();
    expect(problems).toEqual([]);
  });
});
