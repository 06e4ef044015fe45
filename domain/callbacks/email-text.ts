// The words of a task's e-mail in each language it is sent in (domain/callbacks/email-message.ts).
// Values are plain text; the builder escapes whatever is put into HTML, these included.
import type { TaskErrorCode } from '../../model/errors.js';
import { TASK_ERRORS_ZH } from '../../model/error-words.js';
import type { Locale } from '../../model/task.js';

export interface MailWords {
  readySubject: (name: string) => string;
  failedSubject: (name: string) => string;
  ready: (name: string) => string;
  failed: (name: string, why: string) => string;
  file: (rows: string, size: string) => string;
  total: (rows: string, size: string) => string;
  until: (when: string) => string;
  open: string;
  linkNote: (operator: string, until: string) => string;
  noLink: string;
  why: Record<TaskErrorCode, string>;
  footer: string;
}

const en: MailWords = {
  readySubject: (n) => `Your export "${n}" is ready`,
  failedSubject: (n) => `Your export "${n}" failed`,
  ready: (n) => `Your export "${n}" is ready to download.`,
  failed: (n, why) => `Your export "${n}" failed: ${why}`,
  file: (rows, size) => `${rows} rows, ${size}`,
  total: (rows, size) => `In all: ${rows} rows, ${size}.`,
  until: (when) => `The files can be downloaded until ${when}.`,
  open: 'Open my downloads',
  linkNote: (op, until) => `This link opens this export's files in the download center as ${op}, for downloading only, until ${until}. Do not forward it.`,
  noLink: 'The files have already expired.',
  why: {
    source_unreachable: 'the data source could not be reached.',
    source_bad_response: 'the data source answered with something that is not valid data.',
    source_changed: 'the data changed while it was being exported.',
    source_host_not_allowed: 'the data source is no longer allowed for this project.',
    render_failed: "a value in the data does not fit its column's type.",
    storage_failed: 'the file could not be stored.',
    template_invalid: 'the export template is not valid.',
    chart_column_unknown: 'a chart names a column the table does not have.',
    export_too_large: 'the export is larger than the service allows.',
    destination_auth_failed: 'the destination (a bucket or an SFTP server) refused our credentials.',
    destination_bucket_missing: "the destination bucket, or the SFTP server's directory, does not exist.",
    destination_permission_denied: 'we may not write to the destination bucket or SFTP directory.',
    destination_host_not_allowed: 'the destination is no longer allowed for this project.',
    destination_not_found: 'the destination was deleted.',
    destination_unreachable: 'the destination (a bucket or an SFTP server) could not be reached.',
    destination_host_key_mismatch: "the SFTP server's host key is not the one registered for the destination.",
    internal_error: 'an internal error stopped it.',
    too_many_parts: 'split by its file size or row limit, it would make more files than the service allows.',
  },
  footer: 'Sent by Download Center because this address was given for this export.',
};

const zhCN: MailWords = {
  readySubject: (n) => `您的导出“${n}”已完成`,
  failedSubject: (n) => `您的导出“${n}”失败`,
  ready: (n) => `您的导出“${n}”已完成，可以下载。`,
  failed: (n, why) => `您的导出“${n}”失败：${why}`,
  file: (rows, size) => `${rows} 行，${size}`,
  total: (rows, size) => `共 ${rows} 行，${size}。`,
  until: (when) => `文件可下载至 ${when}。`,
  open: '打开我的下载',
  linkNote: (op, until) => `此链接以 ${op} 的身份在下载中心打开本次导出的文件，仅可下载，有效期至 ${until}。请勿转发。`,
  noLink: '文件已过期。',
  why: TASK_ERRORS_ZH,
  footer: '此邮件由下载中心发送，因为此地址被指定接收该导出的通知。',
};

export const MAIL_WORDS: Record<Locale, MailWords> = { en, 'zh-CN': zhCN };

/** A failed task's reason as one English sentence (what an operator's view of the task says). */
export function taskErrorSentence(code: TaskErrorCode): string {
  const why = en.why[code];
  return why.charAt(0).toUpperCase() + why.slice(1);
}

/** Sizes as people read them: 1,234 B, 12.3 KB, 4.5 MB (1024-based, one decimal). */
export function formatBytes(bytes: number, locale: Locale): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  const digits = u === 0 ? 0 : 1;
  return `${n.toLocaleString(locale, { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${units[u]}`;
}

export const formatCount = (n: number, locale: Locale): string => n.toLocaleString(locale);

/** A time every reader reads the same way, whatever their time zone: 2026-12-01 10:00 UTC. */
export const formatTime = (d: Date): string => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
