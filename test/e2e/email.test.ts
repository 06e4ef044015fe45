// E-mail when a task ends (docs/notifications.md#5-e-mail), against the real service and a real SMTP
// server the test starts: the mails in both languages parsed with mailparser (text and HTML, the
// caller's text escaped, nothing remote), the deliveries with channel email, the mail's link
// followed in Chromium to the operator's center and a download; a failed task's mail; a recipient
// outside email_domains refused; an SMTP server that is down never failing the task, its mail
// delivered once it is back, and only once; one that hangs up before its greeting (a restart):
// nothing was sent, so the mail is retried and arrives once.
import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorSessions } from '../../db/schema.js';
import { formatTime, MAIL_WORDS } from '../../domain/callbacks/email-text.js';
import { OPERATOR_SESSION_MAX_SECONDS } from '../../domain/projects/sessions.js';
import { buildConsole, launchChromium } from '../support/browser.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type Received, type SmtpSink, startSmtpSink } from '../support/smtp.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let smtp: SmtpSink;
let browser: Browser;
let project: { project_id: string; api_key: string };
const { source, closeSources } = sourcePool();

interface Delivery {
  channel: string;
  recipient: string | null;
  result: string;
  attempt: number;
  webhook_id: string;
  error: string | null;
  next_attempt_at: string | null;
}
const deliveries = async (taskId: string): Promise<Delivery[]> => (await env.api('GET', `/v1/tasks/${taskId}/deliveries`, { token: project.api_key })).json.items;
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
const submit = (body: Record<string, unknown>) => env.api('POST', '/v1/tasks', { token: project.api_key, body: { operator_id: 'alice', ...body } });
const mailsTo = (address: string) => smtp.received.filter((m) => m.envelopeTo.includes(address));
const html = (m: Received) => String(m.parsed.html);

beforeAll(async () => {
  buildConsole();
  browser = await launchChromium();
  smtp = await startSmtpSink();
  env = await startTestEnv({ SMTP_URL: smtp.url, EMAIL_FROM: 'Exports <exports@example.test>' });
  project = await env.createProject({ source_hosts: ['127.0.0.1'] });
  const set = await env.api('PATCH', `/v1/projects/${project.project_id}`, { token: ADMIN, body: { email_domains: ['Example.test', 'corp.example'] } });
  expect(set.json.email_domains).toEqual(['example.test', 'corp.example']);
});

afterAll(async () => {
  await browser?.close();
  await closeSources();
  await env?.close();
  await smtp?.close();
});

describe('e-mail when a task ends', () => {
  it('mails each recipient once, in the task locale, escaped, with a link that opens that task in the center and downloads the file', async () => {
    const src = await source({ total: 250 });
    const operator = 'ali<ce> & "co"';
    // Another task of the same operator: the mail's link must not show it.
    const other = await submit({ operator_id: operator, source_url: src.url, file_name: 'other export' });
    expect((await env.waitForTask(other.json.task_id, project.api_key)).status).toBe('succeeded');
    const res = await submit({ operator_id: operator, source_url: src.url, file_name: '订单 & Q4 <b>', notify_email: ['ops@example.test', 'Boss@Corp.Example'], locale: 'zh-CN' });
    expect(res.status).toBe(202);
    expect(res.json.notify_email).toEqual(['ops@example.test', 'boss@corp.example']);
    expect(res.json.locale).toBe('zh-CN');
    const task = await env.waitForTask(res.json.task_id, project.api_key);
    expect(task.status).toBe('succeeded');

    const rows = await until(() => deliveries(task.task_id), (d) => d.filter((x) => x.result === 'delivered').length === 2);
    expect(rows.map((d) => [d.channel, d.recipient, d.result, d.attempt]).sort()).toEqual([
      ['email', 'boss@corp.example', 'delivered', 1],
      ['email', 'ops@example.test', 'delivered', 1],
    ]);
    const [mail] = mailsTo('ops@example.test');
    expect(mailsTo('boss@corp.example')).toHaveLength(1);
    expect(mail!.parsed.messageId).toBe(rows.find((d) => d.recipient === 'ops@example.test')!.webhook_id);
    expect(mail!.parsed.from?.value).toEqual([{ name: 'Exports', address: 'exports@example.test' }]);

    const words = MAIL_WORDS['zh-CN'];
    const name = task.file_name as string; // sanitised at submission: 订单 & Q4 _b_
    expect(mail!.parsed.subject).toBe(words.readySubject(name));
    const text = mail!.parsed.text ?? '';
    expect(text).toContain(words.ready(name));
    expect(text).toContain('250 行');
    const body = html(mail!);
    expect(body).toContain('订单 &amp; Q4');
    expect(body).toContain('ali&lt;ce&gt; &amp; &quot;co&quot;');
    expect(body).not.toContain(operator);
    expect(body).not.toMatch(/<img|<script|src=|url\(|<link/i); // nothing remote, no pixel, no script
    expect(body).toContain(words.open);

    // The link: that one task, download only, until its files expire or for a day, whichever is first.
    const link = /https?:\/\/\S+\/operator#token=dco_[A-Za-z0-9_-]+/.exec(text)?.[0];
    expect(link).toBeDefined();
    const sessions = await env.core.database.db.select().from(operatorSessions).where(eq(operatorSessions.operatorId, operator));
    expect(sessions).toHaveLength(2); // one per mail
    for (const s of sessions) {
      expect(s.permissions).toEqual(['download']);
      expect(s.taskId).toBe(task.task_id);
      const lasts = Math.min(Date.parse(task.expires_at), s.createdAt.getTime() + OPERATOR_SESSION_MAX_SECONDS * 1000);
      expect(Math.abs(s.expiresAt.getTime() - lasts)).toBeLessThan(60_000);
    }
    expect(sessions.some((s) => text.includes(words.linkNote(operator, formatTime(s.expiresAt))))).toBe(true);
    const linkToken = link!.split('#token=')[1]!;
    expect((await env.api('GET', `/v1/tasks/${other.json.task_id}`, { token: linkToken })).status).toBe(404);
    expect((await env.api('GET', '/v1/tasks', { token: linkToken })).json.items.map((t: { task_id: string }) => t.task_id)).toEqual([task.task_id]);

    const page = await browser.newPage({ acceptDownloads: true });
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await page.goto(link!.replace(/^https?:\/\/[^/]+/, env.base));
    await page.getByRole('heading', { name: '我的下载' }).waitFor();
    expect(page.url()).toBe(`${env.base}/operator`);
    const row = page.locator('li.task', { hasText: 'Q4' });
    await row.waitFor();
    // That task only: the operator's other task is not on the page, nor readable with the link's token.
    expect(await page.locator('li.task').count()).toBe(1);
    expect(await page.locator('li.task', { hasText: 'other export' }).count()).toBe(0);
    expect(await row.getByRole('button').count()).toBe(0); // download only: no cancel, retry or pause
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link').first().click()]);
    const file = await fetch(`${env.base}/v1/tasks/${task.task_id}/download`, { headers: { Authorization: `Bearer ${project.api_key}` } });
    expect(file.status).toBe(200);
    const bytes = readFileSync((await download.path())!);
    expect(bytes).toEqual(Buffer.from(await file.arrayBuffer()));
    expect(bytes.toString('utf8').split('\n').filter(Boolean)).toHaveLength(251); // the header and 250 rows
    expect(requested.some((u) => u.includes('dco_'))).toBe(false);
    await page.close();
  });

  it("mails a failed task's end in one sentence, in English by default, without a link", async () => {
    const src = await source({ total: 100, intercept: (r) => (r.pageSize === 1 ? undefined : { status: 404, body: 'gone' }) });
    const res = await submit({ source_url: src.url, file_name: 'broken', notify_email: 'ops@corp.example' });
    const task = await env.waitForTask(res.json.task_id, project.api_key);
    expect(task.status).toBe('failed');
    await until(() => deliveries(task.task_id), (d) => d.some((x) => x.result === 'delivered'));
    const [mail] = mailsTo('ops@corp.example');
    const words = MAIL_WORDS.en;
    expect(mail!.parsed.subject).toBe(words.failedSubject('broken'));
    expect(mail!.parsed.text).toContain(words.failed('broken', words.why[task.error.code as keyof typeof words.why]));
    expect(html(mail!)).not.toContain('/operator');
    expect(mail!.parsed.text).not.toContain('/operator');
  });

  it('refuses a recipient outside the project email_domains (422 email_domain_not_allowed)', async () => {
    const src = await source({ total: 10 });
    const out = await submit({ source_url: src.url, notify_email: ['ok@example.test', 'x@evil.example'] });
    expect(out.status).toBe(422);
    expect(out.json.error.code).toBe('email_domain_not_allowed');
    expect(out.json.error.details).toEqual([{ field: 'notify_email.1', message: expect.any(String) }]);
    const sub = await submit({ source_url: src.url, notify_email: 'a@sub.example.test' });
    expect(sub.json.error.code).toBe('email_domain_not_allowed');
    const six = await submit({ source_url: src.url, notify_email: ['a', 'b', 'c', 'd', 'e', 'f'].map((x) => `${x}@example.test`) });
    expect(six.json.error.code).toBe('validation_failed');
    const other = await env.createProject({ source_hosts: ['127.0.0.1'] });
    const none = await env.api('POST', '/v1/tasks', { token: other.api_key, body: { operator_id: 'a', source_url: src.url, notify_email: 'a@example.test' } });
    expect(none.json.error.code).toBe('email_domain_not_allowed');
  });

  it('never fails the task when the SMTP server is down, and delivers once it is back, once', async () => {
    await smtp.down();
    const before = smtp.received.length;
    const src = await source({ total: 20 });
    const res = await submit({ source_url: src.url, file_name: 'while-down', notify_email: 'late@example.test', locale: 'en' });
    const task = await env.waitForTask(res.json.task_id, project.api_key);
    expect(task.status).toBe('succeeded');
    const failed = await until(() => deliveries(task.task_id), (d) => d.some((x) => x.result === 'failed'));
    expect(failed[0]).toMatchObject({ channel: 'email', recipient: 'late@example.test', result: 'failed', attempt: 1 });
    expect(failed[0]!.error).toMatch(/ECONNREFUSED|connect/i);
    expect(failed[0]!.next_attempt_at).not.toBeNull();
    expect((await env.api('GET', `/v1/tasks/${task.task_id}`, { token: project.api_key })).json.status).toBe('succeeded');

    await smtp.up();
    const rows = await until(() => deliveries(task.task_id), (d) => d.some((x) => x.result === 'delivered'), 90_000);
    expect(rows.map((d) => [d.attempt, d.result])).toEqual([[1, 'failed'], [2, 'delivered']]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(smtp.received.length - before).toBe(1);
    expect(mailsTo('late@example.test')).toHaveLength(1);
  });

  it('retries a mail whose server hung up before its greeting (a restart), and it arrives once', async () => {
    smtp.dropNext(1);
    const src = await source({ total: 20 });
    const res = await submit({ source_url: src.url, file_name: 'restart', notify_email: 'restart@example.test', locale: 'en' });
    const task = await env.waitForTask(res.json.task_id, project.api_key);
    expect(task.status).toBe('succeeded');
    // Settled either way: delivered by a later attempt, or left unknown (in doubt: never retried).
    const rows = await until(() => deliveries(task.task_id), (d) => d.some((x) => x.result === 'delivered' || x.result === 'unknown'), 90_000);
    expect(rows.map((d) => [d.attempt, d.result])).toEqual([[1, 'failed'], [2, 'delivered']]);
    expect(rows[0]!.error).toMatch(/before the message was sent/);
    await new Promise((r) => setTimeout(r, 1000));
    expect(mailsTo('restart@example.test')).toHaveLength(1);
  });
});
