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
}

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
  const e = err as { message?: string; responseCode?: number; code?: string };
  let message = e.message ?? String(err);
  try {
    const u = new URL(smtpUrl);
    for (const secret of [u.password, u.username, decodeURIComponent(u.password)]) if (secret) message = message.split(secret).join('***');
  } catch {
    // not a URL: config.ts refuses those
  }
  return { message: e.code && !message.includes(e.code) ? `${e.code}: ${message}` : message, responseCode: typeof e.responseCode === 'number' ? e.responseCode : undefined };
}
