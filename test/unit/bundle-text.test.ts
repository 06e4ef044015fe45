import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { oneByteSource } from '../../app/bundle-text.js';

it('the workflow bundle text keeps to Latin-1 and means the same: strings, templates, regular expressions, identifiers, comments', () => {
  const code = [
    '// a comment — with a dash and 中文',
    'const 名 = "导出 — done 😀";',
    'const t = `${名} • ${"é"}`;',
    'const r = /[—😀]/u.test("😀") && /中/.test("中文");',
    '({ 名, t, r, é: "café" });',
  ].join('\n');
  const escaped = oneByteSource(code);
  expect(/[^\x00-\xff]/.test(escaped)).toBe(false);
  // Latin-1 characters stay as they are (V8 keeps them at one byte).
  expect(escaped).toContain('é');
  expect(runInNewContext(escaped)).toEqual(runInNewContext(code));
});
