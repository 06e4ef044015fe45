// The rule of docs/adr/0040-workflow-versioning-from-1.0.md: every patch id the workflows call
// (patched or deprecatePatch) has its row in that ADR's table, every row names a patch still
// called, and every file that calls one points at the ADR. At 1.0 the table is empty, and so is the use.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const ADR = 'docs/adr/0040-workflow-versioning-from-1.0.md';

const workflows = readdirSync(join(root, 'workflows'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: `workflows/${f}`, text: readFileSync(join(root, 'workflows', f), 'utf8') }));

/** The code without its comments (a comment may say `patched(id)`). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** The patch ids the workflows call, each with the file that calls it. */
function patchesUsed(): Map<string, string> {
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
  return used;
}

/** The ids in the ADR's table (its header checked, so an unreadable table fails rather than reads empty). */
function tableRows(): string[] {
  const adr = readFileSync(join(root, ADR), 'utf8');
  expect(adr).toContain('| patch id | called in | introduced | what it changes |');
  return [...adr.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
}

it('has a row in ADR 0040 for every patch the workflows call, and a call for every row', () => {
  const used = patchesUsed();
  const rows = tableRows();
  expect([...used.keys()].filter((id) => !rows.includes(id)), `patches with no row in ${ADR}`).toEqual([]);
  expect(rows.filter((id) => !used.has(id)), `rows in ${ADR} for patches no workflow calls (retired: delete the row)`).toEqual([]);
  for (const id of used.keys()) expect(id, 'a patch id starts with dc-').toMatch(/^dc-[a-z0-9-]+$/);
});

it('cuts the 1.0 baseline: no workflow calls patched() or deprecatePatch(), and the table is empty', () => {
  expect(patchesUsed()).toEqual(new Map());
  expect(tableRows()).toEqual([]);
});
