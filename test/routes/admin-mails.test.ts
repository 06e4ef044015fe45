// /v1/admin/mails and the /mails page in process (route-app.ts), over a real local SMTP catcher
// (platform/mail-catcher.ts) sent a real mail through nodemailer: the admin token only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MailCatcher, startMailCatcher } from '../../platform/mail-catcher.js';
import { sendMail } from '../../platform/mailer.js';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { ADMIN, type RouteApp, startRouteApp } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

let rt: RouteApp;
let catcher: MailCatcher;
beforeAll(async () => {
  catcher = await startMailCatcher(2);
  rt = await startRouteApp({}, { mailbox: catcher });
});
afterAll(async () => {
  await rt?.close();
  await catcher?.close();
});

const admin = { token: ADMIN };
const mail = (n: number) => ({ from: 'dc@example.test', to: 'ops@example.test', subject: `导出 ${n} <ready>`, text: `text ${n}`, html: `<p>html ${n}</p>`, messageId: `<m${n}@example.test>` });

describe('GET /v1/admin/mails', () => {
  it('lists the caught mails newest first, keeping only the last ones', async () => {
    for (const n of [1, 2, 3]) await sendMail(catcher.url, mail(n));
    const res = await rt.call('GET', '/v1/admin/mails', admin);
    expect(res.status).toBe(200);
    expect(res.json.catching).toBe(true);
    expect(res.json.items.map((m: { subject: string }) => m.subject)).toEqual(['导出 3 <ready>', '导出 2 <ready>']);
    expect(res.json.items[0]).toMatchObject({ from: 'dc@example.test', to: ['ops@example.test'], mail_id: expect.stringMatching(/^mail_/) });
  });

  it('is for the admin token only', async () => {
    await expectKeyRefusals(rt, 'GET', '/v1/admin/mails', 'admin');
  });
});

describe('GET /v1/admin/mails/{mail_id}', () => {
  it('answers one mail with its text and HTML; an unknown id is 404', async () => {
    const [newest] = (await rt.call('GET', '/v1/admin/mails', admin)).json.items;
    const res = await rt.call('GET', `/v1/admin/mails/${newest.mail_id}`, admin);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ mail_id: newest.mail_id, subject: '导出 3 <ready>', message_id: '<m3@example.test>', html: '<p>html 3</p>' });
    expect(res.json.text.trim()).toBe('text 3');
    expectError(await rt.call('GET', '/v1/admin/mails/mail_nope', admin), 404, 'not_found');
    await expectKeyRefusals(rt, 'GET', `/v1/admin/mails/${newest.mail_id}`, 'admin');
  });
});

describe('without a catcher (SMTP_URL set)', () => {
  it('says nothing is caught', async () => {
    const bare = await startRouteApp();
    try {
      expect((await bare.call('GET', '/v1/admin/mails', admin)).json).toEqual({ catching: false, items: [] });
      expectError(await bare.call('GET', '/v1/admin/mails/mail_x', admin), 404, 'not_found');
    } finally {
      await bare.close();
    }
  });
});

describe('GET /mails', () => {
  it('is a page holding no data, its script allowed by hash, framed by nobody', async () => {
    const res = await rt.call('GET', '/mails');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.text).not.toContain('导出');
  });
});

itCalledItsRoutes('admin-mails', () => rt);
