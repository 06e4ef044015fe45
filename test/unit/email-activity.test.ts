// sendTaskEmail (activities/email.ts) on real Postgres and a real SMTP server: the claim that keeps
// one mail from going out twice (docs/adr/0031-task-emails.md) — a second attempt after a delivery
// sends nothing, an attempt that finds the row a dead worker left `sending` sends nothing and marks
// it unknown, a connection that breaks after the message was handed over is not sent again — and an
// address whose domain left email_domains is not mailed.
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailActivities } from '../../activities/email.js';
import type { ActivityDeps } from '../../activities/deps.js';
import { deliveries, operatorSessions, projects, tasks } from '../../db/schema.js';
import { emailMessageId } from '../../domain/callbacks/email-message.js';
import { createProject } from '../../domain/projects/projects.js';
import type { SendEmailInput } from '../../model/activities.js';
import { projectSettingsSchema } from '../../model/project-settings.js';
import { loadConfig } from '../../platform/config.js';
import { newId } from '../../platform/crypto.js';
import { sendFailure, smtpSecrets } from '../../platform/mailer.js';
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

/**
 * An SMTP server that takes the whole message and then drops the connection before its final
 * reply: the sender cannot know whether the mail was accepted.
 */
async function droppingServer() {
  let messages = 0;
  const server = createServer((socket: Socket) => {
    let data = false;
    let buffered = '';
    socket.write('220 drop.test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      if (data) {
        if (buffered.includes('\r\n.\r\n')) {
          messages++;
          socket.destroy();
        }
        return;
      }
      for (let nl = buffered.indexOf('\r\n'); nl >= 0; nl = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, nl).toUpperCase();
        buffered = buffered.slice(nl + 2);
        if (line.startsWith('EHLO') || line.startsWith('HELO')) socket.write('250 drop.test\r\n');
        else if (line.startsWith('DATA')) {
          data = true;
          socket.write('354 go ahead\r\n');
          break;
        } else if (line.startsWith('QUIT')) socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`, messages: () => messages, close: () => new Promise((r) => server.close(r)) };
}

describe('a mail whose fate is unknown', () => {
  it('is recorded unknown and not sent again when the connection drops after the message was handed over', async () => {
    const drop = await droppingServer();
    try {
      const config = loadConfig({ SMTP_URL: drop.url, PUBLIC_BASE_URL: 'http://dc.test' });
      const activities = createEmailActivities({ db: scratch.database.db, config } as ActivityDeps);
      const sendVia = (i: SendEmailInput, attempt: number) => runActivity({ attempt }, () => activities.sendTaskEmail(i)).result;
      await scratch.database.db.update(projects).set({ settings: { email_domains: ['example.test'] } }).where(eq(projects.id, projectId));
      const taskId = await newTask(['d@example.test']);
      const sessions = async () => (await scratch.database.db.select().from(operatorSessions).where(eq(operatorSessions.projectId, projectId))).length;
      const sessionsBefore = await sessions();
      await expect(sendVia(input(taskId), 1)).rejects.toMatchObject({ type: 'email_in_doubt', nonRetryable: true });
      expect(drop.messages()).toBe(1);
      // Even if an attempt came again (it does not: nonRetryable), the claim holds.
      await expect(sendVia(input(taskId), 2)).rejects.toMatchObject({ type: 'email_in_doubt' });
      expect(drop.messages()).toBe(1);
      const all = await rows(taskId);
      expect(all.map((r) => r.result)).toEqual(['unknown']);
      expect(all[0]!.error).toMatch(/not sent again/);
      // One link was made, by the attempt that held the mail; the one that found it held made none.
      expect(await sessions()).toBe(sessionsBefore + 1);
    } finally {
      await drop.close();
    }
  });

  it('tells a failure before sending from one that may have come after it', () => {
    const url = 'smtp://user:50%off@127.0.0.1:25';
    const code = (e: object) => sendFailure(Object.assign(new Error('x'), e), url).inDoubt;
    expect(code({ code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN' })).toBe(false);
    expect(code({ code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT' })).toBe(false);
    expect(code({ code: 'EAUTH', responseCode: 535 })).toBe(false);
    expect(code({ code: 'EMESSAGE', responseCode: 451 })).toBe(false);
    expect(code({ code: 'ETIMEDOUT', timeoutType: 'SOCKET_TIMEOUT' })).toBe(true);
    expect(code({ code: 'ECONNECTION', command: 'CONN' })).toBe(true);
    // A password with a stray % (not percent-encoding) is still kept out of the message.
    expect(smtpSecrets(url)).toEqual([url, '50%off']);
    expect(sendFailure(new Error('login 50%off refused for user'), url).message).not.toMatch(/50%off/);
  });
});
