// A caller's text in the Temporal UI's Markdown renders as itself: no link, image, HTML, autolink or
// emphasis, whatever an operator id, a file name or a project name holds. Rendered by micromark with
// GitHub's extensions (autolinks of bare URLs and addresses included), the strictest common reading.
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { describe, expect, it } from 'vitest';
import { runDetails, runSummary } from '../../domain/tasks/admission/run.js';
import { markdownText } from '../../platform/markdown.js';

const render = (md: string) => micromark(md, { extensions: [gfm()], htmlExtensions: [gfmHtml()], allowDangerousHtml: true });
const decoded = (html: string) => html.replace(/<\/?p>\n?/g, '').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

const attacks = [
  '[click](https://evil.example/x)',
  '![x](https://evil.example/pixel.png)',
  '<img src=x onerror=alert(1)>',
  '<a href="https://evil.example">x</a>',
  'https://evil.example/login',
  'www.evil.example',
  'boss@evil.example',
  '**bold** _it_ `code` ~~gone~~',
  '[ref][1]\n\n[1]: https://evil.example',
  '# heading\n- item',
  'a\\](https://evil.example)',
  '- item one',
  '1. first',
  '> quoted',
  '&lt;b&gt; entity',
  'WWW.evil.example and Www.evil.example',
];

describe('markdownText', () => {
  it.each(attacks)('renders %j as the text itself', (text) => {
    const html = render(markdownText(text));
    expect(html).not.toMatch(/<(a|img|strong|em|code|del|h1|li|script)\b/);
    expect(decoded(html)).toBe(text.replace(/\s+/g, ' '));
  });

  it('leaves plain names, CJK and digits readable', () => {
    expect(markdownText('订单 2026 op42')).toBe('订单 2026 op42');
    expect(markdownText('merchant-platform orders-2026-11.v2')).toBe('merchant-platform orders-2026-11.v2');
  });

  it('escapes every caller text of the run summary and details', () => {
    const summary = runSummary({ operatorId: '[me](https://evil.example)', type: 'csv', fileName: '![p](https://evil.example/p.png)' }, '<b>shop</b>');
    expect(render(summary)).not.toMatch(/<(a|img|b)\b/);
    const details = runDetails({ id: 'tsk_1', sourceUrl: 'http://evil.example:81/x?q=[a](b)', pageSize: 500, options: {}, priority: 3 }, 'http://dc.example');
    expect(render(details)).not.toMatch(/<(a|img)\b.*evil/);
  });
});
