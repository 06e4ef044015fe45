// /v1/admin/mails (docs/api.md#get-v1adminmails, admin token only): the mails the embedded start's
// local SMTP catcher kept (platform/mail-catcher.ts) when no SMTP_URL is set.
import { createRoute, z } from '@hono/zod-openapi';
import { DomainError } from '../../domain/errors.js';
import type { MailCatcher } from '../../platform/mail-catcher.js';
import { auth, errors, json, keyed, openApiApp, type Responses } from '../openapi.js';
import type { AppEnv } from '../types.js';

const mailSummary = z.object({
  mail_id: z.string(),
  received_at: z.iso.datetime({ offset: true }),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
});
const mailList = z
  .object({
    catching: z.boolean().openapi({ description: 'false: this service sends through SMTP_URL and keeps no mail.' }),
    items: z.array(mailSummary).openapi({ description: 'Newest first, at most the last 200.' }),
  })
  .openapi('CaughtMailList');
const mail = mailSummary
  .extend({ message_id: z.string().nullable(), text: z.string(), html: z.string().nullable().openapi({ description: "The mail's HTML as sent: show it only in a sandboxed frame." }) })
  .openapi('CaughtMail');
const mailIdParam = z.object({ mail_id: z.string().max(64).openapi({ description: 'mail_…' }) });

const list = createRoute({
  method: 'get',
  path: '/mails',
  operationId: 'adminListMails',
  tags: ['admin'],
  summary: 'Mails caught by the local SMTP catcher (npm start without SMTP_URL), newest first',
  security: auth.admin,
  responses: { 200: json(mailList, 'The caught mails.'), ...errors(...keyed) } as Responses,
});

const one = createRoute({
  method: 'get',
  path: '/mails/{mail_id}',
  operationId: 'adminGetMail',
  tags: ['admin'],
  summary: 'One caught mail: its text and HTML',
  security: auth.admin,
  request: { params: mailIdParam },
  responses: { 200: json(mail, 'The mail.'), ...errors(...keyed, 404) } as Responses,
});

export function adminMailsApp(mailbox: MailCatcher | undefined) {
  const app = openApiApp<AppEnv>();
  app.openapi(list, (c) =>
    c.json({
      catching: mailbox !== undefined,
      items: (mailbox?.list() ?? []).map((m) => ({ mail_id: m.id, received_at: m.receivedAt.toISOString(), from: m.from, to: m.to, subject: m.subject })),
    }),
  );
  app.openapi(one, async (c) => {
    const m = await mailbox?.read(c.req.valid('param').mail_id);
    if (!m) throw DomainError.notFound('mail');
    const { id, ...rest } = m;
    return c.json({ mail_id: id, ...rest });
  });
  return app;
}
