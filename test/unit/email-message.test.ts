// The task e-mail builder (domain/callbacks/email-message.ts): both languages, the caller's text
// escaped in the HTML and kept on one line, nothing remote, the failure in one sentence.
import { describe, expect, it } from 'vitest';
import { buildTaskMail, emailDomainAllowed, emailMessageId, type TaskMail } from '../../domain/callbacks/email-message.js';
import { formatBytes, MAIL_WORDS } from '../../domain/callbacks/email-text.js';

const base: TaskMail = {
  locale: 'en',
  event: 'task.succeeded',
  name: 'orders <script>alert(1)</script> & "co"',
  operatorId: 'u<42>',
  files: [
    { name: 'orders-1.csv', rows: 1000, bytes: 2048 },
    { name: 'orders-2.csv', rows: 500, bytes: 1024 },
    { name: 'orders.zip', rows: 1500, bytes: 1500 },
  ],
  totalRows: 1500,
  expiresAt: new Date('2026-12-01T10:00:00Z'),
  link: 'https://dc.example/operator#token=dco_abc"><img src=x>',
  // A link lasts a day at most, while files may live longer.
  linkUntil: new Date('2026-11-28T09:30:00Z'),
  error: null,
};

describe('buildTaskMail', () => {
  it('names the files, rows, size, expiry and the link, in text and HTML', () => {
    const m = buildTaskMail(base);
    expect(m.subject).toBe('Your export "orders <script>alert(1)</script> & "co"" is ready');
    expect(m.text).toContain('- orders-1.csv: 1,000 rows, 2.0 KB');
    expect(m.text).toContain('In all: 1,500 rows, 3.0 KB.'); // the parts, not the zip counted twice
    expect(m.text).toContain('until 2026-12-01 10:00 UTC');
    expect(m.text).toContain(`Open my downloads: ${base.link}`);
    expect(m.html).toContain('orders-2.csv');
    expect(m.html).toContain('2026-12-01 10:00 UTC');
  });

  it("escapes every piece of the caller's text in the HTML and loads nothing remote", () => {
    const m = buildTaskMail(base);
    expect(m.html).not.toContain('<script>');
    expect(m.html).toContain('orders &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;co&quot;');
    expect(m.html).toContain('u&lt;42&gt;');
    expect(m.html).toContain('href="https://dc.example/operator#token=dco_abc&quot;&gt;&lt;img src=x&gt;"');
    expect(m.html).not.toMatch(/<img|<link|<script|url\(/i);
  });

  it('keeps a name with line breaks on one line (no header or paragraph injection)', () => {
    const m = buildTaskMail({ ...base, name: 'a\r\nBcc: x@evil.example\n\nb' });
    expect(m.subject).toBe('Your export "a Bcc: x@evil.example b" is ready');
    expect(m.subject).not.toMatch(/[\r\n]/);
  });

  it('speaks Chinese for zh-CN', () => {
    const m = buildTaskMail({ ...base, locale: 'zh-CN', name: '订单' });
    expect(m.subject).toBe('您的导出“订单”已完成');
    expect(m.text).toContain('共 1,500 行，3.0 KB。');
    expect(m.html).toContain('lang="zh-CN"');
    expect(m.html).toContain('打开我的下载');
  });

  it('says until when the link opens the files, which may be before the files expire', () => {
    const m = buildTaskMail(base);
    expect(m.text).toContain(MAIL_WORDS.en.linkNote('u<42>', '2026-11-28 09:30 UTC'));
    expect(m.text).toContain("opens this export's files");
    expect(buildTaskMail({ ...base, locale: 'zh-CN' }).text).toContain('有效期至 2026-11-28 09:30 UTC');
  });

  it('says the files expired when there is no link', () => {
    const m = buildTaskMail({ ...base, link: null });
    expect(m.text).toContain(MAIL_WORDS.en.noLink);
    expect(m.html).not.toContain('href=');
  });

  it("says why a task failed in one sentence of the reader's language, never the raw message", () => {
    for (const locale of ['en', 'zh-CN'] as const) {
      const m = buildTaskMail({ ...base, locale, event: 'task.failed', files: [], link: null, error: { code: 'source_unreachable' } });
      const w = MAIL_WORDS[locale];
      expect(m.subject).toBe(w.failedSubject(base.name));
      expect(m.text.split('\n')[0]).toBe(w.failed(base.name, w.why.source_unreachable));
      expect(m.html).not.toContain('href=');
    }
  });
});

describe('the helpers', () => {
  it('allows exactly the listed domains, without case, no subdomains', () => {
    expect(emailDomainAllowed(['example.com'], 'A@Example.COM')).toBe(true);
    expect(emailDomainAllowed(['example.com'], 'a@sub.example.com')).toBe(false);
    expect(emailDomainAllowed(['example.com'], 'a@example.com.evil')).toBe(false);
    expect(emailDomainAllowed([], 'a@example.com')).toBe(false);
  });

  it('gives a Message-ID that is the same on every attempt and differs by run, end and recipient', () => {
    const id = (over = {}) => emailMessageId({ taskId: 'tsk_1', run: 1, event: 'task.succeeded', index: 0, ...over }, 'dc.example');
    expect(id()).toBe('<tsk_1.1.succeeded.0@dc.example>');
    expect(new Set([id(), id({ run: 2 }), id({ event: 'task.failed' }), id({ index: 1 })]).size).toBe(4);
  });

  it('formats sizes', () => {
    expect(formatBytes(512, 'en')).toBe('512 B');
    expect(formatBytes(1536, 'en')).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 ** 3, 'zh-CN')).toBe('5.0 GB');
  });
});
