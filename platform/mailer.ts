// Sending one e-mail through SMTP_URL with nodemailer. The URL may hold credentials: it is handed
// to nodemailer only, never put into an error or a log line (nodemailer's own logger stays off).
import { createTransport } from 'nodemailer';

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Deterministic (the task, its run, its end, the recipient): the same on every attempt. */
  messageId: string;
}

export interface SendFailure {
  message: string;
  /** The SMTP reply code, when the server answered (5xx: refused for good). */
  responseCode: number | undefined;
  /**
   * Whether the mail may have reached the server all the same: the connection broke or went quiet
   * after it was open, perhaps while the message or the server's final reply was on the wire.
   */
  inDoubt: boolean;
}

// Failures that come before a message can have been handed over: no server, no TLS, no login,
// an address or a size refused, or a phase of setting up the connection that ran out of time.
const BEFORE_SENDING = new Set(['EDNS', 'ETLS', 'EAUTH', 'EENVELOPE', 'EMESSAGE', 'ESTREAM', 'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const SETUP_TIMEOUTS = new Set(['CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT']);

/** Per phase; the whole send stays well inside the activity's start-to-close timeout (2 minutes). */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000, dnsTimeout: 10_000 };

export async function sendMail(smtpUrl: string, mail: OutgoingMail): Promise<{ response: string }> {
  const transport = createTransport({ url: smtpUrl, ...TIMEOUTS, logger: false, debug: false, disableFileAccess: true, disableUrlAccess: true });
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
}

/** What went wrong, without anything of the URL (credentials) in it. */
export function sendFailure(err: unknown, smtpUrl: string): SendFailure {
  const e = err as { message?: string; responseCode?: number; code?: string; originalCode?: string; timeoutType?: string };
  let message = e.message ?? String(err);
  for (const secret of smtpSecrets(smtpUrl, { user: true })) message = message.split(secret).join('***');
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  // A reply of 4xx or 5xx is the server's own word that it did not take the mail.
  const definite = (responseCode !== undefined && responseCode >= 400) || BEFORE_SENDING.has(e.code ?? '') || BEFORE_SENDING.has(e.originalCode ?? '') || SETUP_TIMEOUTS.has(e.timeoutType ?? '');
  return { message: e.code && !message.includes(e.code) ? `${e.code}: ${message}` : message, responseCode, inDoubt: !definite };
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
