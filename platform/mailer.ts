// Sending one e-mail through SMTP_URL with nodemailer. The URL may hold credentials: it is handed
// to nodemailer only, never put into an error or a log line (nodemailer's own logger stays off).
// A failure is classified by what reached the server (docs/adr/0031-task-emails.md).
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';

// nodemailer is ~2 MB of each process's heap and most never send a mail: loaded with the first one
// (docs/adr/0055-idle-memory-of-npm-start.md).
const loadNodemailer = () => createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer');

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Deterministic (the task, its run, its end, the recipient): the same on every attempt. */
  messageId: string;
}

/**
 * What a failed send means for the mail, by what reached the server (docs/notifications.md#5-e-mail):
 * - `retry`: nothing of the message was sent (the exchange broke before the server took DATA), or
 *   the server answered 4xx: it did not take the mail;
 * - `rejected`: the server answered 5xx: refused for good;
 * - `in_doubt`: the message was handed over and no reply came: it may have arrived.
 */
export type SendOutcome = 'retry' | 'rejected' | 'in_doubt';

export interface SendFailure {
  message: string;
  /** The SMTP reply code, when the server answered. */
  responseCode: number | undefined;
  outcome: SendOutcome;
}

/** A failed send, and whether the message had been handed over (the server had accepted DATA). */
export class SendError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly handedOver: boolean,
    message: string,
  ) {
    super(message);
    this.name = 'SendError';
  }
}

/** A message without anything of the URL (credentials) in it. */
function scrubbed(message: string, smtpUrl: string): string {
  for (const secret of smtpSecrets(smtpUrl, { user: true })) message = message.split(secret).join('***');
  return message;
}

/** Per phase; the whole send stays well inside the activity's start-to-close timeout (2 minutes). */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000, dnsTimeout: 10_000 };

/**
 * The message as a stream that says when nodemailer takes it. nodemailer pipes the message into
 * the socket only once the server accepted DATA (its 354), in the same turn as it reads that reply,
 * so until `pipe` (or a first read, by any other reader) not a byte of it can be on the wire: every
 * failure before is one of setting up the exchange, always safe to retry. `beforeData` runs between
 * the two: nothing is written until it has resolved, and nothing at all when it throws.
 */
function watched(input: Readable, handover: (sent: boolean) => void, beforeData: () => Promise<void>): Readable {
  const out = Readable.from(
    (async function* () {
      handover(true);
      try {
        await beforeData();
      } catch (err) {
        handover(false); // refused before its first byte: nothing was sent after all
        throw err;
      }
      yield* input;
    })(),
    { objectMode: false },
  );
  const pipe = out.pipe.bind(out);
  out.pipe = <T extends NodeJS.WritableStream>(dest: T, opts?: { end?: boolean }): T => {
    handover(true);
    return pipe(dest, opts);
  };
  return out;
}

export interface SendOptions {
  /** Runs once the server accepted DATA, before the message's first byte; a throw sends nothing. */
  beforeData?: () => Promise<void>;
}

export async function sendMail(smtpUrl: string, mail: OutgoingMail, opts: SendOptions = {}): Promise<{ response: string }> {
  let handedOver = false;
  const beforeData = opts.beforeData ?? (() => Promise.resolve());
  try {
    const transport = loadNodemailer().createTransport({ url: smtpUrl, ...TIMEOUTS, logger: false, debug: false, disableFileAccess: true, disableUrlAccess: true });
    transport.use('stream', (m, done) => {
      m.message.processFunc((input) => watched(input, (sent) => (handedOver = sent), beforeData));
      done();
    });
    try {
      const info = await transport.sendMail({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
        // Automatic mail: no out-of-office replies back to EMAIL_FROM.
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
      return { response: String(info.response ?? '') };
    } finally {
      transport.close();
    }
  } catch (err) {
    throw new SendError(err, handedOver, scrubbed((err as Error | undefined)?.message ?? String(err), smtpUrl));
  }
}

/** What went wrong and what it means for the mail, without anything of the URL (credentials) in it. */
export function sendFailure(err: unknown, smtpUrl: string): SendFailure {
  // Without word of how far the exchange got, the worst is assumed: the message may have gone.
  const handedOver = err instanceof SendError ? err.handedOver : true;
  const cause = err instanceof SendError ? err.cause : err;
  const e = cause as { message?: string; responseCode?: number; code?: string };
  let message = scrubbed(e.message ?? String(cause), smtpUrl);
  if (e.code && !message.includes(e.code)) message = `${e.code}: ${message}`;
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  // A reply is the server's own word, at any step: 4xx it did not take the mail (yet), 5xx never.
  if (responseCode !== undefined && responseCode >= 400) return { message, responseCode, outcome: responseCode >= 500 ? 'rejected' : 'retry' };
  if (!handedOver) return { message: `${message} (before the message was sent)`, responseCode, outcome: 'retry' };
  return { message: `${message} (after the message was handed over)`, responseCode, outcome: 'in_doubt' };
}

const decoded = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // a stray % (config.ts lets it through, as URL does)
  }
};

/** The parts of SMTP_URL that must appear in no log line and no error: the URL, its password (and user), as written and decoded. */
export function smtpSecrets(url: string | undefined, opts: { user?: boolean } = {}): string[] {
  if (!url) return [];
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [url]; // config.ts refuses those
  }
  const parts = [u.password, ...(opts.user ? [u.username] : [])].flatMap((p) => [p, decoded(p)]);
  return [url, ...new Set(parts.filter(Boolean))];
}
