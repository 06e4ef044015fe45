// Every repository path a reader is pointed at exists: the paths named in comments (.ts, .tsx, .mjs,
// .cjs, .sh), in README.md and docs/ (ADRs included), and every relative Markdown link, with its
// #anchor when it names a heading. A file moved or renamed leaves no comment or doc pointing at nothing.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { comments, docs, PREFIXES, root, scripts, shellComments, SKIP_DIRS, sources, walk } from '../support/repo-text.js';

/** The folders of the old layout: a comment naming a file in one of them is checked, and fails. */
const RETIRED = ['bin', 'lib', 'worker'];

/**
 * Folders that exist only once something ran, so a fresh clone lacks them: a path into one is not
 * checked, wherever it sits (console/dist/, client/dist/, client/node_modules/).
 */
const GENERATED = [
  'dist/', // npm run build, the console's and the client's builds
  '.tools/', // scripts/ensure-tools.mjs and scripts/test-tools.mjs
  'node_modules/',
  'data/', // DATA_DIR of npm start
  '.bench/', // the profiles of npm run bench
];

/**
 * A path-like token: one of the known top-level folders, a slash, then path characters, maybe a
 * placeholder after it (test/support/…, staging/<task>/) and an #anchor. It must not continue a
 * longer word or path (a URL's /api/…, the console/dist inside .../console/dist).
 */
const PATH = new RegExp(
  `(?<![\\w./:@$-])(?:\\./)?((?:${[...PREFIXES, ...RETIRED].map((p) => p.replace('.', '\\.')).join('|')})/[\\w./@-]*)([<{*…]?)(?:#([\\w-]+))?`,
  'g',
);

interface NamedPath {
  path: string;
  /** It stops at a placeholder: what it names is a folder, or the start of names in one. */
  prefix: boolean;
  anchor?: string;
}

function pathsIn(text: string): NamedPath[] {
  const found: NamedPath[] = [];
  for (const m of text.matchAll(PATH)) {
    const path = m[1]!.replace(/[.-]+$/, '');
    if (GENERATED.some((g) => `/${path}/`.includes(`/${g}`))) continue;
    found.push({ path, prefix: m[2] !== '', ...(m[3] ? { anchor: m[3] } : {}) });
  }
  return found;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = m[1]!
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = counts.get(slug) ?? 0;
    counts.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Whether a repository path exists: a .js named as in an ESM import stands for its .ts or .tsx. */
function exists(path: string, prefix: boolean): boolean {
  const clean = path.replace(/\/+$/, '');
  const full = join(root, clean);
  if (prefix) {
    if (path.endsWith('/')) return existsSync(full) && statSync(full).isDirectory();
    const dir = dirname(full);
    const start = clean.slice(clean.lastIndexOf('/') + 1);
    return existsSync(dir) && readdirSync(dir).some((name) => name.startsWith(start));
  }
  return existsSync(full) || (clean.endsWith('.js') && (existsSync(full.replace(/\.js$/, '.ts')) || existsSync(full.replace(/\.js$/, '.tsx'))));
}

/** Whether a named path is broken: a missing file, or for a Markdown file with an #anchor, a missing heading. */
function broken(path: string, anchor: string | undefined, prefix: boolean): string | undefined {
  if (!exists(path, prefix)) return 'no such file or folder';
  if (anchor && path.endsWith('.md') && !anchorsOf(readFileSync(join(root, path), 'utf8')).has(anchor)) return `no heading #${anchor}`;
  return undefined;
}

function namedPaths(file: string, texts: string[]): string[] {
  return texts.flatMap((text) =>
    pathsIn(text).flatMap(({ path, prefix, anchor }) => {
      const why = broken(path, anchor, prefix);
      return why ? [`${file}: ${path}${anchor ? `#${anchor}` : ''} (${why})`] : [];
    }),
  );
}

/** Relative Markdown links and images: [text](../x.md#anchor), resolved from the document's folder. */
function markdownLinks(file: string, text: string): string[] {
  const problems: string[] = [];
  const withoutCode = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  for (const m of withoutCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [pathPart, anchor] = target.split('#') as [string, string | undefined];
    const path = pathPart === '' ? file : normalize(join(dirname(file), decodeURIComponent(pathPart)));
    if (path.startsWith('..')) {
      problems.push(`${file}: ${target} (points outside the repository)`);
      continue;
    }
    const why = broken(path.split('\\').join('/'), anchor, false);
    if (why) problems.push(`${file}: ${target} (${why})`);
  }
  return problems;
}

describe('paths named in comments and docs', () => {
  it('knows every top-level folder of the repository', () => {
    const tops = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !SKIP_DIRS.has(e.name))
      .map((e) => e.name);
    expect(tops.filter((t) => !PREFIXES.includes(t))).toEqual([]);
    expect(PREFIXES.filter((p) => !tops.includes(p))).toEqual([]);
  });

  it('recognises paths precisely', () => {
    const text = [
      'see domain/tasks/starter.ts and docs/adr/0011-staged-pieces.md#status, then test/support/…',
      'https://example.com/api/x and ./console/dist/index.html, node dist/app/start.js, .tools/temporal/bin',
      'staging/<task>/pages, domain/formats/<name>/ and lib/plan.ts.',
    ].join('\n');
    expect(pathsIn(text)).toEqual([
      { path: 'domain/tasks/starter.ts', prefix: false },
      { path: 'docs/adr/0011-staged-pieces.md', prefix: false, anchor: 'status' },
      { path: 'test/support/', prefix: true },
      { path: 'domain/formats/', prefix: true },
      { path: 'lib/plan.ts', prefix: false },
    ]);
    expect(broken('lib/plan.ts', undefined, false)).toBe('no such file or folder');
    expect(broken('model/plan.js', undefined, false)).toBeUndefined();
    expect(broken('README.md', 'no-such-heading', false)).toBe('no heading #no-such-heading');
    expect(anchorsOf('# A title\n## Errors: the envelope\n```\n# not a heading\n```\n## Errors: the envelope')).toEqual(
      new Set(['a-title', 'errors-the-envelope', 'errors-the-envelope-1']),
    );
  });

  it('finds something to check', () => {
    expect(sources.length).toBeGreaterThan(200);
    expect(docs).toContain('docs/adr/0011-staged-pieces.md');
    expect(scripts.length).toBeGreaterThan(0);
  });

  it('every path in a code comment exists', () => {
    const problems = [...sources.flatMap((f) => namedPaths(f, comments(f))), ...scripts.flatMap((f) => namedPaths(f, shellComments(f)))];
    expect(problems).toEqual([]);
  });

  it('every path and relative link in README.md and docs/ exists', () => {
    const problems = docs.flatMap((f) => {
      const text = readFileSync(join(root, f), 'utf8');
      return [...namedPaths(f, [text]), ...markdownLinks(f, text)];
    });
    expect(problems).toEqual([]);
  });
});

describe('nothing points outside the repository', () => {
  // A user's clone has only this repository: no comment or doc may send a reader to a working
  // agreement kept beside it.
  const OUTSIDE = /\.\.\/shared|CONTRACT(\.md| §)/;

  it('no code comment, doc or ADR cites a file outside the repository', () => {
    const files = walk('').filter((f) => /\.(ts|tsx|mjs|cjs|sh|md)$/.test(f) && f !== 'test/unit/doc-paths.test.ts');
    expect(files.length).toBeGreaterThan(200);
    const cites = files.filter((f) => OUTSIDE.test(readFileSync(join(root, f), 'utf8')));
    expect(cites).toEqual([]);
  });
});
