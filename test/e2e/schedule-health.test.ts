// Schedules that tell someone they are failing (docs/schedules.md#when-a-schedule-keeps-failing), on the
// real service, Temporal dev server and Postgres: a schedule whose source fails pauses itself after
// pause_after_failures runs, shows paused_reason "failing" and last_error, and its pause sends exactly
// one mail to each of alert_emails (a real SMTP server) and one signed schedule.paused event (a real
// receiver verifying with standardwebhooks), also when the step that paused it runs again after a
// crash; resume clears it all; a manual pause says "manual"; a host leaving source_hosts says
// "source_host_not_allowed"; the alert settings are checked against email_domains and callback_hosts;
// a 6-field cron without a year is refused; a backfill's progress shows on the schedule. The console
// (Chromium) shows a failing schedule at the alert's link and resumes it.
import { eq } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySchedulePaused } from '../../client/src/index.js';
import { schedules, tasks } from '../../db/schema.js';
import { workflowStartInput } from '../../activities/workflow-start-input.js';
import { noteRunEnded } from '../../domain/schedules/runs.js';
import { scheduleAlertIds } from '../../model/schedule.js';
import { emailWorkflow } from '../../workflows/email.js';
import { buildConsole, launchChromium } from '../support/browser.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let browser: Browser;
let smtp: SmtpSink;
let hook: Receiver;
let project: { project_id: string; api_key: string; webhook_secret: string };
const { source, closeSources } = sourcePool();

beforeAll(async () => {
  buildConsole();
  browser = await launchChromium();
  smtp = await startSmtpSink();
  env = await startTestEnv({ SMTP_URL: smtp.url, EMAIL_FROM: 'Exports <exports@example.test>', PUBLIC_BASE_URL: 'https://exports.example.test' });
  project = await env.createProject({ callback_hosts: ['127.0.0.1'], email_domains: ['example.test'], max_running_tasks: 10 });
  hook = await startReceiver(project.webhook_secret);
  const set = await env.api('PATCH', `/v1/projects/${project.project_id}`, { token: ADMIN, body: { alert_emails: ['Ops@example.test', 'lead@example.test'], alert_callback: hook.url } });
  expect(set.status, JSON.stringify(set.json)).toBe(200);
  expect(set.json).toMatchObject({ alert_emails: ['ops@example.test', 'lead@example.test'], alert_callback: hook.url });
});

afterAll(async () => {
  await browser?.close();
  await hook?.close();
  await closeSources();
  await env?.close();
  await smtp?.close();
});

const key = () => project.api_key;
const get = async (id: string) => (await env.api('GET', `/v1/schedules/${id}`, { token: key() })).json;
const create = async (body: Record<string, unknown>, token = key()) => {
  const res = await env.api('POST', '/v1/schedules', { token, body: { operator_id: 'reports', ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json;
};
const lastTrigger = new Map<string, number>();
/** POST …/<action>; triggers a second apart (Temporal names a run by the second it is due). */
async function act(id: string, action: string, token = key()) {
  if (action === 'trigger') {
    const wait = (lastTrigger.get(id) ?? 0) + 1100 - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lastTrigger.set(id, Date.now());
  }
  const res = await env.api('POST', `/v1/schedules/${id}/${action}`, { token });
  expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
  return res.json;
}
const runsOf = async (id: string, token = key()) => (await env.api('GET', `/v1/tasks?schedule_id=${id}`, { token })).json.items as any[];
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(v)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
/** Triggers one run and waits until the schedule has `n` ended runs. */
async function runOnce(id: string, n: number) {
  await act(id, 'trigger');
  return until(() => runsOf(id), (t) => t.length === n && t.every((x) => x.status === 'failed' || x.status === 'succeeded'));
}
const alertMails = (scheduleId: string) => smtp.received.filter((m) => String(m.parsed.messageId ?? '').includes(`${scheduleId}.paused.`));
async function patchAlertEmails(list: string[]) {
  const res = await env.api('PATCH', `/v1/projects/${project.project_id}`, { token: ADMIN, body: { alert_emails: list } });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
}
const alertEvents = (scheduleId: string) => hook.received.filter((r) => (r.payload as any)?.schedule_id === scheduleId);

describe('a schedule that keeps failing', () => {
  it('pauses itself, shows why, and tells alert_emails and alert_callback exactly once', async () => {
    let broken = true;
    const src = await source({ total: 3, intercept: () => (broken ? { status: 404, body: '{}' } : undefined) });
    const s = await create({ cron: '0 3 1 * *', source_url: src.url, file_name: 'ledger-{{date}}', pause_after_failures: 3 });
    expect(s).toMatchObject({ paused: false, paused_reason: null, last_error: null, consecutive_failures: 0, backfill: null });

    // One failure, then a success: the streak starts over, the last error stays until a resume.
    await runOnce(s.schedule_id, 1);
    await until(() => get(s.schedule_id), (g) => g.consecutive_failures === 1);
    broken = false;
    await runOnce(s.schedule_id, 2);
    const afterOk = await until(() => get(s.schedule_id), (g) => g.consecutive_failures === 0);
    expect(afterOk).toMatchObject({ paused: false, paused_reason: null, last_error: { code: 'source_bad_response' } });
    broken = true;

    await runOnce(s.schedule_id, 3);
    await runOnce(s.schedule_id, 4);
    expect(await get(s.schedule_id)).toMatchObject({ paused: false, consecutive_failures: 2 });
    const runs = await runOnce(s.schedule_id, 5);
    const last = runs[0];
    expect(last.status).toBe('failed');
    const paused = await until(() => get(s.schedule_id), (g) => g.paused === true);
    expect(paused).toMatchObject({
      paused_reason: 'failing',
      consecutive_failures: 3,
      last_error: { code: 'source_bad_response', task_id: last.task_id },
    });
    expect(paused.last_error.message).toMatch(/HTTP 404/);
    expect(Date.parse(paused.last_error.at)).toBeGreaterThan(0);
    expect((await env.temporal.schedule.getHandle(s.schedule_id).describe()).state.paused).toBe(true);
    // The list says the same.
    const listed = (await env.api('GET', '/v1/schedules?limit=100', { token: key() })).json.items.find((x: any) => x.schedule_id === s.schedule_id);
    expect(listed).toMatchObject({ paused: true, paused_reason: 'failing', last_error: { task_id: last.task_id } });

    // One mail to each address, naming the schedule, the failures and the last error, with the console's link.
    await until(async () => alertMails(s.schedule_id), (m) => m.length >= 2);
    const [hit] = await hook.waitFor(1);
    const mails = alertMails(s.schedule_id);
    expect(mails.map((m) => m.envelopeTo).sort()).toEqual([['lead@example.test'], ['ops@example.test']]);
    // Named as the failed run was: the file_name template filled for it.
    expect(last.file_name).toMatch(/^ledger-\d{4}-\d\d-\d\d$/);
    for (const m of mails) {
      expect(m.parsed.subject).toBe(`Schedule "${last.file_name}" paused after failing`);
      expect(m.parsed.text).toContain(`The schedule "${last.file_name}" (${s.schedule_id}) paused itself: its last 3 runs failed in a row.`);
      expect(m.parsed.text).toContain(`The last failure: source_bad_response, the data source answered with something that is not valid data. (task ${last.task_id},`);
      expect(m.parsed.text).toContain(`https://exports.example.test/#/schedules/${s.schedule_id}`);
      expect(String(m.parsed.html)).toContain(`href="https://exports.example.test/#/schedules/${s.schedule_id}"`);
    }
    // The event: signed with the project's secret (the receiver verified it), the pause's facts.
    expect(hit!.verifyError).toBeUndefined();
    expect(hit!.headers['webhook-id']).toBe(`msg_${s.schedule_id}_paused_${last.task_id}_1`);
    expect(hit!.payload).toMatchObject({
      event: 'schedule.paused',
      schedule_id: s.schedule_id,
      failures: 3,
      last_error: { code: 'source_bad_response', task_id: last.task_id },
      console_url: `https://exports.example.test/#/schedules/${s.schedule_id}`,
      schedule: { schedule_id: s.schedule_id, paused: true, paused_reason: 'failing' },
    });
    // The client verifies it as a receiver would.
    expect(verifySchedulePaused(project.webhook_secret, hit!.body, hit!.headers)).toMatchObject({ event: 'schedule.paused', failures: 3 });
    // The deliveries are recorded with the failed task that paused it.
    // (an e-mail's result is recorded just after the SMTP server took it: polled, not read once)
    const alerts = async () => ((await env.api('GET', `/v1/tasks/${last.task_id}/deliveries`, { token: key() })).json.items as any[]).filter((d) => d.event === 'schedule.paused');
    await expect.poll(async () => (await alerts()).map((d) => [d.channel, d.result]).sort()).toEqual([['callback', 'delivered'], ['email', 'delivered'], ['email', 'delivered']]);

    // Exactly once: the step that paused it runs again as after a crash before it noted the alert
    // (alerted_at cleared), and a run triggered on the paused schedule fails too.
    const { db } = env.core.database;
    await db.update(schedules).set({ alertedAt: null }).where(eq(schedules.id, s.schedule_id));
    const [row] = await db.select().from(tasks).where(eq(tasks.id, last.task_id));
    await noteRunEnded({ db, temporal: env.temporal, config: env.config }, row!);
    const [again] = await db.select({ alertedAt: schedules.alertedAt }).from(schedules).where(eq(schedules.id, s.schedule_id));
    expect(again!.alertedAt).not.toBeNull();
    await runOnce(s.schedule_id, 6);
    // Given the time a second mail or event would take to arrive (the first came within it).
    await new Promise((r) => setTimeout(r, 3000));
    expect(alertMails(s.schedule_id)).toHaveLength(2);
    expect(alertEvents(s.schedule_id)).toHaveLength(1);

    // The addresses and the count are fixed in the alert's input at the pause.
    const ids = scheduleAlertIds(s.schedule_id, last.task_id, 1);
    const mailRun = await env.temporal.workflow.getHandle(ids.emailWorkflowId).describe();
    const fixed = { to: ['ops@example.test', 'lead@example.test'], failures: 3 };
    expect(await workflowStartInput(env.temporal, { workflowId: mailRun.workflowId, runId: mailRun.runId })).toMatchObject({ recipients: 2, alert: fixed });
    // A send reads them there, not from the project's list as it is now, and a mail is keyed by its
    // address, not its place: an alert whose list lost "ops" and gained "new" in its place (and one
    // outside email_domains) mails "new" alone; "lead" already has its mail. The project's own list,
    // meanwhile, names someone else entirely.
    await patchAlertEmails(['someone@example.test']);
    const alert = { to: ['new@example.test', 'lead@example.test', 'x@elsewhere.test'], failures: 3 };
    const input = { taskId: last.task_id, run: 1, event: 'schedule.paused' as const, recipients: 3, alert };
    const out = await env.temporal.workflow.execute(emailWorkflow, { taskQueue: env.config.TEMPORAL_TASK_QUEUE, workflowId: `${ids.emailWorkflowId}.edited`, args: [input] });
    expect(out).toEqual({ delivered: 2, notDelivered: 1 });
    const sent = alertMails(s.schedule_id);
    expect(sent.map((m) => m.envelopeTo).sort()).toEqual([['lead@example.test'], ['new@example.test'], ['ops@example.test']]);
    expect(sent.find((m) => m.envelopeTo[0] === 'new@example.test')!.parsed.text).toContain('its last 3 runs failed in a row.');
    await patchAlertEmails(['Ops@example.test', 'lead@example.test']);

    // Resume clears the reason, the error and the count.
    const resumed = await act(s.schedule_id, 'resume');
    expect(resumed).toMatchObject({ paused: false, paused_reason: null, last_error: null, consecutive_failures: 0 });
  });

  it('says "manual" for a pause through the API or the Temporal UI, and nothing is sent', async () => {
    const src = await source({ total: 3 });
    const s = await create({ cron: '0 4 * * *', source_url: src.url });
    const paused = await act(s.schedule_id, 'pause');
    expect(paused).toMatchObject({ paused: true, paused_reason: 'manual', last_error: null });
    expect(await get(s.schedule_id)).toMatchObject({ paused_reason: 'manual' });
    expect(await act(s.schedule_id, 'resume')).toMatchObject({ paused: false, paused_reason: null });
    // Paused in the Temporal UI (not through the API): someone paused it by hand too.
    await env.temporal.schedule.getHandle(s.schedule_id).pause('from the Temporal UI');
    expect(await get(s.schedule_id)).toMatchObject({ paused: true, paused_reason: 'manual' });
    expect(alertMails(s.schedule_id)).toHaveLength(0);
  });

  it('says "source_host_not_allowed" when a run is refused because its host left source_hosts', async () => {
    const other = await env.createProject({ source_hosts: ['127.0.0.1', 'data.example.test'] });
    const src = await source({ total: 3 });
    const s = await create({ cron: '0 5 * * *', source_url: src.url }, other.api_key);
    const changed = await env.api('PATCH', `/v1/projects/${other.project_id}`, { token: ADMIN, body: { source_hosts: ['data.example.test'] } });
    expect(changed.status).toBe(200);
    await act(s.schedule_id, 'trigger', other.api_key);
    const paused = await until(() => env.api('GET', `/v1/schedules/${s.schedule_id}`, { token: other.api_key }).then((r) => r.json), (g) => g.paused === true);
    expect(paused).toMatchObject({ paused_reason: 'source_host_not_allowed', last_error: { code: 'source_host_not_allowed', task_id: null } });
    expect(await runsOf(s.schedule_id, other.api_key)).toHaveLength(0);
  });
});

describe('alert settings', () => {
  it('refuses alert_emails outside email_domains and an alert_callback outside callback_hosts (422)', async () => {
    const patch = (body: Record<string, unknown>) => env.api('PATCH', `/v1/projects/${project.project_id}`, { token: ADMIN, body });
    const mail = await patch({ alert_emails: ['ops@example.test', 'someone@elsewhere.example'] });
    expect(mail.status).toBe(422);
    expect(mail.json.error).toMatchObject({ code: 'email_domain_not_allowed' });
    expect(mail.json.error.message).toMatch(/alert_emails\.1 .*email_domains/);
    const hookOut = await patch({ alert_callback: 'https://hooks.elsewhere.example/x' });
    expect(hookOut.status).toBe(422);
    expect(hookOut.json.error).toMatchObject({ code: 'callback_host_not_allowed' });
    const bad = await patch({ alert_emails: ['not an address'] });
    expect(bad.status).toBe(422);
    expect(bad.json.error.code).toBe('validation_failed');
    // Set together with the list that allows it: accepted; at creation the same rules.
    expect((await patch({ email_domains: ['example.test', 'elsewhere.example'], alert_emails: ['someone@elsewhere.example'] })).status).toBe(200);
    const created = await env.api('POST', '/v1/projects', { token: ADMIN, body: { name: 'x', source_hosts: ['127.0.0.1'], alert_emails: ['a@example.test'] } });
    expect(created.status).toBe(422);
    expect(created.json.error.code).toBe('email_domain_not_allowed');
    // The test's project as it was.
    expect((await patch({ email_domains: ['example.test'], alert_emails: ['ops@example.test', 'lead@example.test'] })).status).toBe(200);
  });
});

describe('cron fields', () => {
  it('refuses a 6-field cron whose last field is not a year, and takes 7 fields and a 6-field one ending in a year', async () => {
    const url = (await source({ total: 1 })).url;
    const six = await env.api('POST', '/v1/schedules', { token: key(), body: { operator_id: 'r', source_url: url, cron: '*/5 * * * * *' } });
    expect(six.status).toBe(422);
    expect(six.json.error.details).toEqual([{ field: 'cron', message: expect.stringMatching(/6 fields.*year.*7/) }]);
    const seven = await create({ source_url: url, cron: '*/5 * * * * * *' });
    const gaps = seven.next_runs.slice(0, 3).map((t: string, i: number, all: string[]) => (i ? Date.parse(t) - Date.parse(all[i - 1]!) : 5000));
    expect(gaps).toEqual([5000, 5000, 5000]);
    const year = await create({ source_url: url, cron: '0 2 * * * 2099' });
    expect(year.next_runs[0]).toBe('2099-01-01T02:00:00.000Z');
    await env.api('DELETE', `/v1/schedules/${seven.schedule_id}`, { token: key() });
  });
});

describe('backfill progress', () => {
  it('shows on the schedule how many of a backfill\'s runs have made their task', async () => {
    const src = await source({ total: 2 });
    const s = await create({ cron: '0 * * * *', overlap: 'allow_all', source_url: `${src.url}?from={{interval_start}}` });
    const res = await env.api('POST', `/v1/schedules/${s.schedule_id}/backfill`, { token: key(), body: { start: '2026-01-01T00:00:00Z', end: '2026-01-01T03:00:00Z' } });
    expect(res.status).toBe(202);
    expect(res.json.intervals).toBe(3);
    const first = await get(s.schedule_id);
    expect(first.backfill).toMatchObject({ start: '2026-01-01T00:00:00.000Z', end: '2026-01-01T03:00:00.000Z', total: 3 });
    expect(first.backfill.done).toBeLessThanOrEqual(3);
    const done = await until(() => get(s.schedule_id), (g) => g.backfill.done === 3);
    expect(done.backfill.total).toBe(3);
    expect(await runsOf(s.schedule_id)).toHaveLength(3);
    const listed = (await env.api('GET', '/v1/schedules?limit=100', { token: key() })).json.items.find((x: any) => x.schedule_id === s.schedule_id);
    expect(listed.backfill).toMatchObject({ done: 3, total: 3 });
  });
});

describe('the console', () => {
  /** The console opened at a schedule's link (the alert mail's), signed in with the project's key. */
  async function openAt(scheduleId: string) {
    const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${env.base}/#/schedules/${scheduleId}`);
    await page.getByLabel('Project API key').fill(key());
    await page.getByRole('button', { name: 'Sign in' }).click();
    return { context, page, item: page.locator('li.schedule', { hasText: scheduleId }) };
  }

  it('shows a failing schedule at a glance, with its last error, and resumes it', async () => {
    const src = await source({ total: 3, intercept: () => ({ status: 404, body: '{}' }) });
    const s = await create({ cron: '0 6 1 * *', source_url: src.url, pause_after_failures: 1 });
    const [run] = await runOnce(s.schedule_id, 1);
    await until(() => get(s.schedule_id), (g) => g.paused_reason === 'failing');
    const { context, page, item } = await openAt(s.schedule_id);
    await item.locator('.badge.failed', { hasText: 'Failing' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('paused itself after failing');
    expect(await item.locator('.task-error').first().textContent()).toMatch(new RegExp(`Last error: source_bad_response .*HTTP 404.*${run.task_id}`));
    await item.getByRole('button', { name: 'Resume' }).click();
    await item.locator('.badge', { hasText: 'Active' }).waitFor();
    await context.close();
    expect(await get(s.schedule_id)).toMatchObject({ paused: false, paused_reason: null, last_error: null });
  });

  it("shows a backfill's progress", async () => {
    const src = await source({ total: 2 });
    const s = await create({ cron: '0 * * * *', overlap: 'allow_all', source_url: src.url });
    const res = await env.api('POST', `/v1/schedules/${s.schedule_id}/backfill`, { token: key(), body: { start: '2026-02-01T00:00:00Z', end: '2026-02-01T02:00:00Z' } });
    expect(res.json.intervals).toBe(2);
    await until(() => get(s.schedule_id), (g) => g.backfill.done === 2);
    const { context, item } = await openAt(s.schedule_id);
    await item.getByText('Backfill: 2 of 2 runs').waitFor();
    expect(await item.locator('progress').getAttribute('value')).toBe('2');
    await context.close();
  });
});
