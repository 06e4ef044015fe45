// Every patch the workflows call has its row in ADR 0024 (when and how it retires), and every file
// that calls one points at that ADR: a patch cannot arrive without its retirement plan.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const ADR = 'docs/adr/0024-workflow-patches-and-retirement.md';

const workflows = readdirSync(join(root, 'workflows'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: `workflows/${f}`, text: readFileSync(join(root, 'workflows', f), 'utf8') }));

/** The code without its comments (a comment may say `patched(id)`). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

it('names every patch id used in workflows/ in the table of ADR 0024, and the ADR beside every call', () => {
  const constants = new Map<string, string>();
  for (const { text } of workflows) for (const [, name, value] of code(text).matchAll(/const (\w+) = '([^']+)'/g)) constants.set(name!, value!);

  const used = new Map<string, string>();
  for (const { file, text } of workflows) {
    const calls = [...code(text).matchAll(/\b(?:patched|deprecatePatch)\(\s*([^)]*?)\s*\)/g)].map((m) => m[1]!);
    for (const arg of calls) {
      const id = /^'([^']+)'$/.exec(arg)?.[1] ?? constants.get(arg);
      expect(id, `${file}: patched(${arg}) names no patch id this test can read`).toBeDefined();
      used.set(id!, file);
    }
    if (calls.length > 0) expect(text, `${file} calls patched() without pointing at ${ADR}`).toContain(ADR);
  }
  expect([...used.keys()]).toContain('dc-failed-status');

  const rows = new Set([...readFileSync(join(root, ADR), 'utf8').matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]));
  expect([...used.keys()].filter((id) => !rows.has(id))).toEqual([]);
});
