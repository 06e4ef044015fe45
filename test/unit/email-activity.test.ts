// sendTaskEmail (activities/email.ts) on real Postgres and a real SMTP server: the claim that keeps
// one mail from going out twice (docs/adr/0031-task-emails.md) — a second attempt after a delivery
// sends nothing, an attempt that finds the row a dead worker left `sending` sends nothing and marks
// it unknown — and an address whose domain left email_domains is not mailed. Then a mail classified
// by what reached the server, through a raw SMTP server that hangs up at each step of the exchange:
// before the server took DATA it is retried (and arrives once), after it the mail is in doubt and
// never sent again, and the server's reply to the message (4xx, 5xx) is its word.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailActivities } from '../../activities/email.js';
import type { ActivityDeps } from '../../activities/deps.js';
import { deliveries, operatorSessions, projects, tasks } from '../../db/schema.js';
import { HANDED_OVER } from '../../domain/callbacks/email-deliveries.js';
import { emailMessageId } from '../../domain/callbacks/email-message.js';
import { createProject } from '../../domain/projects/projects.js';
import type { SendEmailInput } from '../../model/activities.js';
import { projectSettingsSchema } from '../../model/project-settings.js';
import { loadConfig } from '../../platform/config.js';
import { newId } from '../../platform/crypto.js';
import { SendError, sendFailure, sendMail, smtpSecrets } from '../../platform/mailer.js';
import { runActivity } from '../support/activity-env.js';
import { scratchDatabase } from '../support/env.js';
import { type SmtpSink, startSmtpSink } from '../support/smtp.js';
import { type SmtpScript, startScriptedSmtp } from '../support/smtp-script.js';

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

  it('never sends again a mail a dead worker left while handing the message over: the row becomes unknown', async () => {
    const taskId = await newTask(['b@example.test']);
    const messageId = emailMessageId({ ...input(taskId) }, 'dc.test');
    // What a worker that died after the server took DATA leaves behind: the row marked handed over.
    await scratch.database.db.insert(deliveries).values({ id: newId('dlv'), taskId, channel: 'email', recipient: 'b@example.test', result: 'sending', statusCode: HANDED_OVER, event: 'task.succeeded', webhookId: messageId, attempt: 1 });
    const before = smtp.received.length;
    await expect(send(input(taskId), 2)).rejects.toMatchObject({ type: 'email_in_doubt', nonRetryable: true });
    await expect(send(input(taskId), 3)).rejects.toMatchObject({ type: 'email_in_doubt' });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.length).toBe(before);
    const [row] = await rows(taskId);
    expect(row).toMatchObject({ result: 'unknown', attempt: 1 });
    expect(row!.error).toMatch(/not sent again/);
  });

  it('sends, once, a mail a dead worker left before handing the message over', async () => {
    const taskId = await newTask(['b2@example.test']);
    const messageId = emailMessageId({ ...input(taskId) }, 'dc.test');
    // A worker that died while connecting (no mark): nothing of the message was sent.
    await scratch.database.db.insert(deliveries).values({ id: newId('dlv'), taskId, channel: 'email', recipient: 'b2@example.test', result: 'sending', event: 'task.succeeded', webhookId: messageId, attempt: 1 });
    expect(await send(input(taskId), 2)).toMatchObject({ result: 'delivered' });
    expect(await send(input(taskId), 3)).toMatchObject({ result: 'delivered' });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.filter((m) => m.envelopeTo.includes('b2@example.test'))).toHaveLength(1);
    const all = await rows(taskId);
    expect(all.map((r) => [r.attempt, r.result]).sort()).toEqual([[1, 'failed'], [2, 'delivered']]);
    expect(all.find((r) => r.attempt === 1)!.error).toMatch(/before the message was sent/);
  });

  it('an attempt that timed out and still runs sends nothing once a later attempt took the mail over', async () => {
    let greet!: () => void;
    const slow = await startScriptedSmtp({ greetAfter: new Promise<void>((r) => (greet = r)) });
    try {
      const taskId = await newTask(['b3@example.test']);
      // Attempt 1 claims the mail and waits for a greeting; Temporal gives up on it (not here: it runs on).
      const first = activityVia(slow.url)(input(taskId), 1).then(() => 'delivered', (e: { type?: string }) => e.type);
      while ((await rows(taskId)).length === 0) await new Promise((r) => setTimeout(r, 20));
      // Attempt 2 finds the row sending, not handed over: it releases it and sends.
      const before = smtp.received.length;
      expect(await send(input(taskId), 2)).toMatchObject({ result: 'delivered' });
      await smtp.waitFor(before + 1);
      greet();
      // Attempt 1 got as far as DATA's 354, then found its claim gone and sent not a byte.
      expect(await first).toBe('email_failed');
      expect(slow.connections()).toBe(1);
      expect(slow.messages).toHaveLength(0);
      expect(smtp.received.filter((m) => m.envelopeTo.includes('b3@example.test'))).toHaveLength(1);
      expect((await rows(taskId)).map((r) => [r.attempt, r.result]).sort()).toEqual([[1, 'failed'], [2, 'delivered']]);
    } finally {
      await slow.close();
    }
  });

  it('does not mail an address whose domain has left email_domains since submission', async () => {
    const taskId = await newTask(['c@example.test']);
    await scratch.database.db.update(projects).set({ settings: { email_domains: ['other.test'] } }).where(eq(projects.id, projectId));
    await expect(send(input(taskId), 1)).rejects.toMatchObject({ type: 'email_domain_not_allowed', nonRetryable: true });
    expect((await rows(taskId)).map((r) => r.result)).toEqual(['failed']);
  });
});

/** The activity run against a server at `url` (its own config: SMTP_URL is read at creation). */
function activityVia(url: string) {
  const config = loadConfig({ SMTP_URL: url, PUBLIC_BASE_URL: 'http://dc.test' });
  const activities = createEmailActivities({ db: scratch.database.db, config } as ActivityDeps);
  return (i: SendEmailInput, attempt: number) => runActivity({ attempt }, () => activities.sendTaskEmail(i)).result;
}

describe('a mail whose fate is unknown', () => {
  it('is recorded unknown and not sent again when the connection drops after the message was handed over', async () => {
    const drop = await startScriptedSmtp({ hangUp: 'dot' });
    try {
      const sendVia = activityVia(drop.url);
      await scratch.database.db.update(projects).set({ settings: { email_domains: ['example.test'] } }).where(eq(projects.id, projectId));
      const taskId = await newTask(['d@example.test']);
      const sessions = async () => (await scratch.database.db.select().from(operatorSessions).where(eq(operatorSessions.projectId, projectId))).length;
      const sessionsBefore = await sessions();
      await expect(sendVia(input(taskId), 1)).rejects.toMatchObject({ type: 'email_in_doubt', nonRetryable: true });
      expect(drop.messages).toHaveLength(1);
      // Even if an attempt came again (it does not: nonRetryable), the claim holds.
      await expect(sendVia(input(taskId), 2)).rejects.toMatchObject({ type: 'email_in_doubt' });
      expect(drop.messages).toHaveLength(1);
      expect(drop.connections()).toBe(1);
      const all = await rows(taskId);
      expect(all.map((r) => r.result)).toEqual(['unknown']);
      expect(all[0]!.error).toMatch(/not sent again/);
      // One link was made, by the attempt that held the mail; the one that found it held made none.
      expect(await sessions()).toBe(sessionsBefore + 1);
    } finally {
      await drop.close();
    }
  });

  it('tells a failure before the message from one that may have come after it, and keeps the password out', () => {
    const url = 'smtp://user:50%off@127.0.0.1:25';
    const outcome = (e: object, handedOver: boolean) => sendFailure(new SendError(Object.assign(new Error('x'), e), handedOver, 'x'), url).outcome;
    expect(outcome({ code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN' }, false)).toBe('retry');
    expect(outcome({ code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT' }, false)).toBe('retry');
    // A server gone quiet before it took the message's data: nothing of the message was sent.
    expect(outcome({ code: 'ETIMEDOUT', timeoutType: 'SOCKET_TIMEOUT', command: 'CONN' }, false)).toBe('retry');
    expect(outcome({ code: 'ETIMEDOUT', timeoutType: 'SOCKET_TIMEOUT', command: 'CONN' }, true)).toBe('in_doubt');
    expect(outcome({ code: 'EAUTH', responseCode: 535 }, false)).toBe('rejected');
    expect(outcome({ code: 'EMESSAGE', responseCode: 451, command: 'DATA' }, true)).toBe('retry');
    expect(outcome({ code: 'EMESSAGE', responseCode: 554, command: 'DATA' }, true)).toBe('rejected');
    // An error that says nothing of how far it got is taken as the worst case.
    expect(sendFailure(new Error('?'), url).outcome).toBe('in_doubt');
    // A password with a stray % (not percent-encoding) is still kept out of the message.
    expect(smtpSecrets(url)).toEqual([url, '50%off']);
    expect(sendFailure(new Error('login 50%off refused for user'), url).message).not.toMatch(/50%off/);
  });
});

type Outcome = 'retry' | 'in_doubt' | 'rejected';
const TYPE: Record<Outcome, string> = { retry: 'email_failed', in_doubt: 'email_in_doubt', rejected: 'email_rejected' };

// Each step of an exchange a server can hang up at (or the reply it gives the message), and what
// that makes of the mail: before the server took DATA (its 354) nothing of the message was sent.
const STEPS: { name: string; script: SmtpScript; outcome: Outcome }[] = [
  { name: 'before the greeting (a restart)', script: { hangUp: 'connect' }, outcome: 'retry' },
  { name: 'after the greeting', script: { hangUp: 'greeting' }, outcome: 'retry' },
  { name: 'after EHLO', script: { hangUp: 'EHLO' }, outcome: 'retry' },
  { name: 'at HELO (EHLO refused)', script: { hangUp: 'HELO' }, outcome: 'retry' },
  { name: 'at STARTTLS', script: { hangUp: 'STARTTLS' }, outcome: 'retry' },
  { name: 'during AUTH', script: { hangUp: 'AUTH' }, outcome: 'retry' },
  { name: 'after MAIL FROM', script: { hangUp: 'MAIL' }, outcome: 'retry' },
  { name: 'after RCPT TO', script: { hangUp: 'RCPT' }, outcome: 'retry' },
  { name: 'after MAIL FROM, pipelined', script: { hangUp: 'MAIL', pipelining: true }, outcome: 'retry' },
  { name: 'after RCPT TO, pipelined', script: { hangUp: 'RCPT', pipelining: true }, outcome: 'retry' },
  { name: "after DATA's 354", script: { hangUp: 'DATA' }, outcome: 'in_doubt' },
  { name: 'in the middle of the message', script: { hangUp: 'message' }, outcome: 'in_doubt' },
  { name: 'after the final dot, before its reply', script: { hangUp: 'dot' }, outcome: 'in_doubt' },
  { name: 'AUTH refused (535)', script: { refuse: { AUTH: '535 5.7.8 bad credentials' } }, outcome: 'rejected' },
  { name: 'RCPT TO deferred (450, greylisting)', script: { refuse: { RCPT: '450 4.2.0 greylisted' } }, outcome: 'retry' },
  { name: 'RCPT TO refused (550)', script: { refuse: { RCPT: '550 5.1.1 no such mailbox' } }, outcome: 'rejected' },
  { name: 'DATA deferred (451)', script: { refuse: { DATA: '451 4.3.0 not now' } }, outcome: 'retry' },
  { name: 'a 4xx reply to the message', script: { finalReply: '451 4.3.0 try again later' }, outcome: 'retry' },
  { name: 'a 5xx reply to the message', script: { finalReply: '554 5.7.1 refused' }, outcome: 'rejected' },
];

describe('a mail is classified by what reached the server', () => {
  it.each(STEPS)('$name: $outcome', async ({ script, outcome }) => {
    // The first connection follows the script; a second attempt finds the server working.
    const server = await startScriptedSmtp({ ...script, times: 1 });
    try {
      const sendVia = activityVia(server.url);
      await scratch.database.db.update(projects).set({ settings: { email_domains: ['example.test'] } }).where(eq(projects.id, projectId));
      const taskId = await newTask(['s@example.test']);
      const failure = (await sendVia(input(taskId), 1).then(() => undefined, (e: unknown) => e)) as { type: string; nonRetryable: boolean; message: string };
      expect(failure).toMatchObject({ type: TYPE[outcome], nonRetryable: outcome !== 'retry' });
      expect(failure.message).not.toContain('s3cret');
      const [first] = await rows(taskId);
      expect(first!.result).toBe(outcome === 'in_doubt' ? 'unknown' : 'failed');
      if (script.hangUp === 'message' || script.hangUp === 'dot') expect(first!.statusCode).toBe(HANDED_OVER);
      expect(first!.nextAttemptAt !== null).toBe(outcome === 'retry');
      expect(server.accepted).toHaveLength(0);

      if (outcome === 'retry') {
        // Retried, and the mail arrives once.
        await expect(sendVia(input(taskId), 2)).resolves.toMatchObject({ result: 'delivered' });
        expect(server.accepted).toHaveLength(1);
        expect((await rows(taskId)).map((r) => [r.attempt, r.result])).toEqual([[1, 'failed'], [2, 'delivered']]);
      } else if (outcome === 'in_doubt') {
        // Never sent again: a second attempt does not even connect.
        await expect(sendVia(input(taskId), 2)).rejects.toMatchObject({ type: 'email_in_doubt' });
        expect(server.connections()).toBe(1);
        expect(server.accepted).toHaveLength(0);
      } else {
        expect(first!.statusCode).toBeGreaterThanOrEqual(500);
      }
    } finally {
      await server.close();
    }
  });

  it('a connection that breaks while a large message streams leaves the mail in doubt', async () => {
    const server = await startScriptedSmtp({ hangUp: 'message' });
    try {
      const big = 'an export of many rows\n'.repeat(100_000); // 2.3 MB: the server hangs up long before its end
      const err = await sendMail(server.url, { from: 'a@example.test', to: 'b@example.test', subject: 's', text: big, html: '<p>s</p>', messageId: '<m.1@dc.test>' }).then(() => undefined, (e: unknown) => e);
      expect(server.messages).toHaveLength(0);
      expect(sendFailure(err, server.url)).toMatchObject({ outcome: 'in_doubt', responseCode: undefined });
      expect((err as Error).message).not.toContain('s3cret');
    } finally {
      await server.close();
    }
  });
});
