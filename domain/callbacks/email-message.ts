// A task's e-mail (docs/notifications.md#5-e-mail): its subject, plain text and HTML, built from the
// task alone so every attempt builds the same mail. The HTML has no images, no remote resources and
// no tracking: inline styles and one link. Every piece of the caller's text (file names, the title,
// the operator id, the failure's message) goes into the HTML through hono's `html` template, which
// escapes it; nothing is inserted raw.
import { html } from 'hono/html';
import type { TaskErrorCode } from '../../model/errors.js';
import type { Locale } from '../../model/task.js';
import { formatBytes, formatCount, formatTime, MAIL_WORDS } from './email-text.js';

export interface TaskMail {
  locale: Locale;
  event: 'task.succeeded' | 'task.failed';
  /** What the mail calls the export: the task's file name. */
  name: string;
  operatorId: string;
  files: Array<{ name: string; rows: number; bytes: number }>;
  totalRows: number | null;
  expiresAt: Date | null;
  /** Opens the center on this task's files; null when the files have already expired. */
  link: string | null;
  /** When the link stops opening (at most a day; the files may outlive it). */
  linkUntil: Date | null;
  error: { code: TaskErrorCode } | null;
}

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/** The same on every attempt of one mail, so a receiver (and the claim) can tell a repeat. */
export function emailMessageId(m: { taskId: string; run: number; event: string; index: number }, host: string): string {
  return `<${m.taskId}.${m.run}.${m.event === 'task.succeeded' ? 'succeeded' : 'failed'}.${m.index}@${host}>`;
}

/** Whether an address's domain is one of the list (exactly, without case; no subdomains). */
export function emailDomainAllowed(domains: readonly string[], address: string): boolean {
  const at = address.lastIndexOf('@');
  return at > 0 && domains.includes(address.slice(at + 1).toLowerCase());
}

/** One line of text: a caller's line breaks must not start a header or a new paragraph. */
export const oneLine = (s: string): string => s.replace(/[\r\n\t\u2028\u2029]+/g, ' ').trim();

export function buildTaskMail(m: TaskMail): MailContent {
  return m.event === 'task.succeeded' ? readyMail(m) : failedMail(m);
}

function readyMail(m: TaskMail): MailContent {
  const w = MAIL_WORDS[m.locale];
  const name = oneLine(m.name);
  const parts = m.files.filter((f) => !f.name.endsWith('.zip') || m.files.length === 1);
  const bytes = m.files.length > 1 ? parts.reduce((s, f) => s + f.bytes, 0) : (m.files[0]?.bytes ?? 0);
  const rows = m.totalRows ?? parts.reduce((s, f) => s + f.rows, 0);
  const fileLine = (f: TaskMail['files'][number]) => w.file(formatCount(f.rows, m.locale), formatBytes(f.bytes, m.locale));
  const total = w.total(formatCount(rows, m.locale), formatBytes(bytes, m.locale));
  const until = m.expiresAt ? w.until(formatTime(m.expiresAt)) : '';
  const note = w.linkNote(oneLine(m.operatorId), formatTime(m.linkUntil ?? m.expiresAt ?? new Date()));
  const text = [
    w.ready(name),
    '',
    ...m.files.map((f) => `- ${oneLine(f.name)}: ${fileLine(f)}`),
    '',
    total,
    until,
    '',
    ...(m.link ? [`${w.open}: ${m.link}`, '', note] : [w.noLink]),
    '',
    '-- ',
    w.footer,
  ];
  const body = html`<p style="margin:0 0 16px">${w.ready(name)}</p>
<table role="presentation" style="border-collapse:collapse;margin:0 0 16px">${m.files.map(
    (f) => html`<tr><td style="padding:4px 16px 4px 0;font-weight:600">${oneLine(f.name)}</td><td style="padding:4px 0;color:#444">${fileLine(f)}</td></tr>`,
  )}</table>
<p style="margin:0 0 8px">${total}</p>
<p style="margin:0 0 24px">${until}</p>
${m.link
    ? html`<p style="margin:0 0 24px"><a href="${m.link}" style="display:inline-block;padding:10px 18px;background:#1f4fd1;color:#fff;text-decoration:none;border-radius:4px">${w.open}</a></p>
<p style="margin:0 0 16px;color:#555;font-size:13px">${note}</p>`
    : html`<p style="margin:0 0 16px">${w.noLink}</p>`}`;
  return { subject: w.readySubject(name), text: text.join('\n'), html: mailPage(m.locale, w.readySubject(name), body, w.footer) };
}

function failedMail(m: TaskMail): MailContent {
  const w = MAIL_WORDS[m.locale];
  const name = oneLine(m.name);
  // One sentence in the reader's language, from the vocabulary; never the raw technical message.
  const sentence = w.failed(name, w.why[m.error?.code ?? 'internal_error']);
  const body = html`<p style="margin:0 0 16px">${sentence}</p>`;
  return { subject: w.failedSubject(name), text: [sentence, '', '-- ', w.footer].join('\n'), html: mailPage(m.locale, w.failedSubject(name), body, w.footer) };
}

export function mailPage(locale: Locale, title: string, body: unknown, footer: string): string {
  return String(html`<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title></head>
<body style="margin:0;padding:24px;font-family:-apple-system,Segoe UI,Roboto,'PingFang SC','Microsoft YaHei',sans-serif;font-size:15px;line-height:1.5;color:#111;background:#fff">
<div style="max-width:560px">${body}
<p style="margin:32px 0 0;color:#777;font-size:12px">${footer}</p></div>
</body></html>`);
}
