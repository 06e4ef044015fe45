// `npm start` without SMTP_URL: an SMTP server on the loopback that keeps the last mails it is sent
// (in memory, MAIL_CATCHER_KEEP of them) instead of delivering them, so a newcomer sees the whole
// flow with no mail server of their own. The admin reads them at GET /v1/admin/mails and /mails.
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { randomToken } from './crypto.js';

// mailparser (with html-to-text, he, libmime, encodings) is ~5 MB of an idle API process's heap
// (docs/adr/0055-idle-memory-of-npm-start.md): loaded when the first mail arrives.
const simpleParser = (raw: Buffer, options: import('mailparser').SimpleParserOptions) => (createRequire(import.meta.url)('mailparser') as typeof import('mailparser')).simpleParser(raw, options);

const MAIL_CATCHER_KEEP = 200;
const MAX_MAIL_BYTES = 5 * 1024 * 1024;

export interface CaughtMail {
  id: string;
  receivedAt: Date;
  from: string;
  to: string[];
  subject: string;
  raw: Buffer;
}

export interface ReadMail {
  id: string;
  received_at: string;
  from: string;
  to: string[];
  subject: string;
  message_id: string | null;
  text: string;
  html: string | null;
}

export interface MailCatcher {
  /** smtp://127.0.0.1:<port>: what the worker sends through in place of SMTP_URL. */
  url: string;
  /** Newest first. */
  list(): CaughtMail[];
  read(id: string): Promise<ReadMail | undefined>;
  close(): Promise<void>;
}

export async function startMailCatcher(keep = MAIL_CATCHER_KEEP): Promise<MailCatcher> {
  const mails: CaughtMail[] = [];
  const server = new SMTPServer({
    // The loopback only, no TLS to set up and no login: nothing reaches it from outside.
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: MAX_MAIL_BYTES,
    // Shutdown does not wait on a client that keeps its connection open.
    closeTimeout: 1000,
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if ((stream as { sizeExceeded?: boolean }).sizeExceeded) return done(Object.assign(new Error('message too large'), { responseCode: 552 }));
        const raw = Buffer.concat(chunks);
        // The subject decoded once here, so the list needs no parsing.
        void simpleParser(raw, { skipImageLinks: true })
          .then((p) => p.subject ?? '', () => '')
          .then((subject) => {
            mails.unshift({
              id: `mail_${randomToken(9).replace(/[^A-Za-z0-9]/g, 'x')}`,
              receivedAt: new Date(),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              subject,
              raw,
            });
            mails.splice(keep);
            done();
          });
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // A client that misbehaves must not stop the service.
  server.on('error', () => undefined);
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    list: () => [...mails],
    async read(id) {
      const mail = mails.find((m) => m.id === id);
      if (!mail) return undefined;
      const parsed = await simpleParser(mail.raw, { skipImageLinks: true });
      return {
        id: mail.id,
        received_at: mail.receivedAt.toISOString(),
        from: mail.from,
        to: mail.to,
        subject: parsed.subject ?? mail.subject,
        message_id: parsed.messageId ?? null,
        text: parsed.text ?? '',
        html: parsed.html === false ? null : (parsed.html ?? null),
      };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
