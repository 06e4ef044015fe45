import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { oneByteSource, withoutSourcesContent } from '../../app/bundle-text.js';

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

it("the bundle's inline source map keeps its mappings and file names, not the sources' text", () => {
  const map = { version: 3, file: 'bundle.js', sources: ['webpack://wf/./workflows/export.ts'], sourcesContent: ['export async function exportWorkflow() {}'], names: [], mappings: 'AAAA' };
  const code = `const a = 1;\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
  const out = withoutSourcesContent(code);
  expect(out.startsWith('const a = 1;\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,')).toBe(true);
  const kept = JSON.parse(Buffer.from(out.slice(out.lastIndexOf('base64,') + 7).trim(), 'base64').toString()) as Record<string, unknown>;
  expect(kept).toEqual({ version: 3, file: 'bundle.js', sources: map.sources, names: [], mappings: 'AAAA' });
  // A text without an inline map is left as it is.
  expect(withoutSourcesContent('const b = 2;\n')).toBe('const b = 2;\n');
});
