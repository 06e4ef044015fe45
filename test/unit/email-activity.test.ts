// sendTaskEmail (activities/email.ts) on real Postgres and a real SMTP server: the claim that keeps
// one mail from going out twice (docs/adr/0031-task-emails.md) — a second attempt after a delivery
// sends nothing, an attempt that finds the row a dead worker left `sending` sends nothing and marks
// it unknown — and an address whose domain left email_domains is not mailed.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailActivities } from '../../activities/email.js';
import type { ActivityDeps } from '../../activities/deps.js';
import { deliveries, projects, tasks } from '../../db/schema.js';
import { emailMessageId } from '../../domain/callbacks/email-message.js';
import { createProject } from '../../domain/projects/projects.js';
import type { SendEmailInput } from '../../model/activities.js';
import { projectSettingsSchema } from '../../model/project-settings.js';
import { loadConfig } from '../../platform/config.js';
import { newId } from '../../platform/crypto.js';
import { runActivity } from '../support/activity-env.js';
import { scratchDatabase } from '../support/env.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp.js';

let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
let smtp: SmtpSink;
let send: (input: SendEmailInput, attempt: number) => Promise<unknown>;
let projectId: string;

async function newTask(notify: string[]) {
  const id = newId('tsk');
  await scratch.database.db.insert(tasks).values({
    id, projectId, operatorId: 'u1', type: 'csv', fileName: 'orders', sourceUrl: 'http://127.0.0.1/x', pageSize: 100, priority: 3,
    options: { notify_email: notify }, requestHash: id, status: 'succeeded', totalRows: 3,
    files: [{ name: 'orders.csv', key: `files/${id}/1.csv`, bytes: 30, rows: 3, sha256: '0'.repeat(64) }],
    expiresAt: new Date(Date.now() + 3600_000),
  });
  return id;
}
const rows = (taskId: string) => scratch.database.db.select().from(deliveries).where(eq(deliveries.taskId, taskId));
const input = (taskId: string): SendEmailInput => ({ taskId, run: 1, event: 'task.succeeded', index: 0 });

beforeAll(async () => {
  scratch = await scratchDatabase('postgres');
  smtp = await startSmtpSink();
  const config = loadConfig({ SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'http://dc.test' });
  const { project } = await createProject(scratch.database.db, { ...projectSettingsSchema.parse({ email_domains: ['example.test'] }), name: 'p', source_hosts: ['127.0.0.1'], callback_hosts: [], destination_hosts: [] });
  projectId = project.id;
  const activities = createEmailActivities({ db: scratch.database.db, config } as ActivityDeps);
  send = (i, attempt) => runActivity({ attempt }, () => activities.sendTaskEmail(i)).result;
});

afterAll(async () => {
  await smtp?.close();
  await scratch?.close();
});

describe('sendTaskEmail', () => {
  it('sends once: an attempt after the delivery finds it claimed and sends nothing', async () => {
    const taskId = await newTask(['a@example.test']);
    const before = smtp.received.length;
    expect(await send(input(taskId), 1)).toMatchObject({ result: 'delivered' });
    await smtp.waitFor(before + 1);
    expect(await send(input(taskId), 2)).toMatchObject({ result: 'delivered' });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.length).toBe(before + 1);
    expect((await rows(taskId)).map((r) => [r.channel, r.recipient, r.result, r.attempt])).toEqual([['email', 'a@example.test', 'delivered', 1]]);
  });

  it('never sends again a mail a dead worker left mid-send: the row becomes unknown', async () => {
    const taskId = await newTask(['b@example.test']);
    const messageId = emailMessageId({ ...input(taskId) }, 'dc.test');
    // What a worker that died inside the SMTP exchange leaves behind.
    await scratch.database.db.insert(deliveries).values({ id: newId('dlv'), taskId, channel: 'email', recipient: 'b@example.test', result: 'sending', event: 'task.succeeded', webhookId: messageId, attempt: 1 });
    const before = smtp.received.length;
    await expect(send(input(taskId), 2)).rejects.toMatchObject({ type: 'email_in_doubt', nonRetryable: true });
    await expect(send(input(taskId), 3)).rejects.toMatchObject({ type: 'email_in_doubt' });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.length).toBe(before);
    const [row] = await rows(taskId);
    expect(row).toMatchObject({ result: 'unknown', attempt: 1 });
    expect(row!.error).toMatch(/not sent again/);
  });

  it('does not mail an address whose domain has left email_domains since submission', async () => {
    const taskId = await newTask(['c@example.test']);
    await scratch.database.db.update(projects).set({ settings: { email_domains: ['other.test'] } }).where(eq(projects.id, projectId));
    await expect(send(input(taskId), 1)).rejects.toMatchObject({ type: 'email_domain_not_allowed', nonRetryable: true });
    expect((await rows(taskId)).map((r) => r.result)).toEqual(['failed']);
  });
});
