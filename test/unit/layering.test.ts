// The layering rule of `npm run lint` (.dependency-cruiser.cjs) run on a small tree laid out like
// ours: it must reject an import that goes up a layer, across domain rooms the wrong way, or round
// in a cycle, and accept the allowed direction.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { projectRoot } from '../../platform/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'dc-layers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tree(files: Record<string, string>): void {
  rmSync(dir, { recursive: true, force: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
}

function depcruise(): { status: number | null; out: string } {
  const bin = join(projectRoot, 'node_modules', '.bin', 'depcruise');
  const r = spawnSync(bin, ['--config', join(projectRoot, '.dependency-cruiser.cjs'), '--output-type', 'err', '.'], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

it('accepts imports that go down the layers', () => {
  tree({
    'workflows/a.ts': "import { x } from '../model/x.js';\nexport const a = x;\n",
    'domain/tasks/t.ts': "import { f } from '../formats/f.js';\nimport { a } from '../../workflows/a.js';\nexport const t = [f, a];\n",
    'domain/formats/f.ts': "import { x } from '../../model/x.js';\nexport const f = x;\n",
    'model/x.ts': 'export const x = 1;\n',
  });
  const r = depcruise();
  expect(r.out).toContain('no dependency violations');
  expect(r.status).toBe(0);
});

it('rejects a workflow importing the domain, a room importing one above it, and a cycle', () => {
  tree({
    'workflows/a.ts': "import { f } from '../domain/formats/f.js';\nexport const a = f;\n",
    'domain/formats/f.ts': "import { t } from '../tasks/t.js';\nexport const f = t;\n",
    'domain/tasks/t.ts': 'export const t = 1;\n',
    'model/x.ts': "import { y } from './y.js';\nexport const x = y;\n",
    'model/y.ts': "import { x } from './x.js';\nexport const y = x;\n",
  });
  const r = depcruise();
  expect(r.status).not.toBe(0);
  expect(r.out).toMatch(/error workflows: workflows\/a\.ts → domain\/formats\/f\.ts/);
  expect(r.out).toMatch(/error domain-formats: domain\/formats\/f\.ts → domain\/tasks\/t\.ts/);
  expect(r.out).toMatch(/error no-circular: model\/x\.ts →/);
});

it('lets the browser console import model/ and the generated API types only, never server code', () => {
  tree({
    'console/src/ok.ts': "import { x } from '../../model/x.js';\nimport type { paths } from '../../client/src/schema.js';\nexport const ok = x as unknown as paths;\n",
    'console/src/bad.tsx': "import { s } from '../../api/s.js';\nexport const bad = s;\n",
    'console/src/client.ts': "import { c } from '../../client/src/index.js';\nexport const d = c;\n",
    'client/src/index.ts': 'export const c = 1;\n',
    'client/src/schema.d.ts': 'export interface paths { a: 1 }\n',
    'api/s.ts': 'export const s = 1;\n',
    'model/x.ts': 'export const x = 1;\n',
  });
  const r = depcruise();
  expect(r.status).not.toBe(0);
  expect(r.out).toMatch(/error console: console\/src\/bad\.tsx → api\/s\.ts/);
  expect(r.out).toMatch(/error console: console\/src\/client\.ts → client\/src\/index\.ts/);
  expect(r.out).not.toMatch(/ok\.ts/);
});

it('keeps the client apart: it imports no server code, and the server does not import it', () => {
  tree({
    'client/src/index.ts': "import type { paths } from './schema.js';\nimport { e } from '../../api/errors.js';\nexport const c = e as unknown as paths;\n",
    'client/src/schema.d.ts': 'export interface paths { a: 1 }\n',
    'api/errors.ts': "import { c } from '../client/src/index.js';\nexport const e = c;\n",
  });
  const r = depcruise();
  expect(r.status).not.toBe(0);
  expect(r.out).toMatch(/error client: client\/src\/index\.ts → api\/errors\.ts/);
  expect(r.out).toMatch(/error not-to-client: api\/errors\.ts → client\/src\/index\.ts/);
  expect(r.out).not.toMatch(/client\/src\/index\.ts → client\/src\/schema/);
});
