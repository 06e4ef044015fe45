// The mail a schedule's pause for failing sends to each of the project's alert_emails
// (docs/schedules.md#when-a-schedule-keeps-failing): which schedule, how many runs failed in a row, the
// last one's error (its code and the vocabulary's sentence, never the raw technical message), and a
// link to the console's schedules page, where it is resumed. Built from the rows alone, so every
// attempt builds the same mail; the caller's text is escaped by hono's `html`, like a task's mail.
import { createHash } from 'node:crypto';
import { html } from 'hono/html';
import type { TaskErrorCode } from '../../model/errors.js';
import type { Locale } from '../../model/task.js';
import { mailPage, type MailContent, oneLine } from '../callbacks/email-message.js';
import { formatTime, MAIL_WORDS } from '../callbacks/email-text.js';

export interface PausedAlert {
  locale: Locale;
  scheduleId: string;
  /** What the failed run was called: the schedule's file_name with its placeholders filled for that run (the task's file_name). */
  name: string;
  failures: number;
  error: { code: TaskErrorCode; taskId: string; at: Date };
  /** The console's schedules page. */
  link: string;
}

/**
 * The same on every attempt of one alert's mail to one address, whatever its place in the list: keyed
 * by the address (lower-cased, hashed: an address has no place in a Message-ID's left part).
 */
export function alertMessageId(a: { scheduleId: string; taskId: string; run: number; address: string }, host: string): string {
  const to = createHash('sha256').update(a.address.toLowerCase()).digest('hex').slice(0, 16);
  return `<${a.scheduleId}.paused.${a.taskId}.${a.run}.${to}@${host}>`;
}

const WORDS = {
  en: {
    subject: (name: string) => `Schedule "${name}" paused after failing`,
    paused: (name: string, id: string, n: number) => `The schedule "${name}" (${id}) paused itself: its last ${n} runs failed in a row.`,
    last: (code: string, why: string, task: string, at: string) => `The last failure: ${code}, ${why} (task ${task}, ${at}).`,
    resume: 'No more runs start until it is resumed. Mend the cause, then resume it in the console:',
    open: 'Open the schedules',
    footer: "Sent by Download Center because this address is on the project's alert_emails.",
  },
  'zh-CN': {
    subject: (name: string) => `计划任务“${name}”因连续失败已暂停`,
    paused: (name: string, id: string, n: number) => `计划任务“${name}”（${id}）已自动暂停：最近 ${n} 次运行连续失败。`,
    last: (code: string, why: string, task: string, at: string) => `最后一次失败：${code}，${why}（任务 ${task}，${at}）。`,
    resume: '恢复之前不会再有运行。请排除原因后在控制台中恢复：',
    open: '打开计划任务',
    footer: '此邮件由下载中心发送，因为此地址在项目的 alert_emails 中。',
  },
} as const;

export function buildPausedMail(a: PausedAlert): MailContent {
  const w = WORDS[a.locale];
  const name = oneLine(a.name);
  const why = MAIL_WORDS[a.locale].why[a.error.code];
  const paused = w.paused(name, a.scheduleId, a.failures);
  const last = w.last(a.error.code, why, a.error.taskId, formatTime(a.error.at));
  const text = [paused, '', last, '', w.resume, a.link, '', '-- ', w.footer].join('\n');
  const body = html`<p style="margin:0 0 16px">${paused}</p>
<p style="margin:0 0 16px">${last}</p>
<p style="margin:0 0 16px">${w.resume}</p>
<p style="margin:0 0 24px"><a href="${a.link}" style="display:inline-block;padding:10px 18px;background:#1f4fd1;color:#fff;text-decoration:none;border-radius:4px">${w.open}</a></p>`;
  return { subject: w.subject(name), text, html: mailPage(a.locale, w.subject(name), body, w.footer) };
}
