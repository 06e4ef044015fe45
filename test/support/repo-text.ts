// The repository's own text, as the doc tests read it: its files (dependencies and builds left
// out), the comments of its code as the compiler sees them, and its Markdown docs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const root = join(import.meta.dirname, '..', '..');

/** The top-level folders a repository path may start with. */
export const PREFIXES = ['.ci', 'activities', 'api', 'app', 'bench', 'client', 'console', 'db', 'deploy', 'docs', 'domain', 'model', 'patches', 'platform', 'scripts', 'test', 'workflows'];

/** Folders never scanned: dependencies, builds, fixtures recorded by tools. */
export const SKIP_DIRS = new Set(['node_modules', '.git', '.tools', 'dist', 'data', '.bench', 'coverage', 'fixtures']);

export function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(rel, out);
    } else out.push(rel);
  }
  return out;
}

export const read = (file: string) => readFileSync(join(root, file), 'utf8');

export const files = walk('');
export const sources = files.filter((f) => /\.(ts|tsx|mjs|cjs)$/.test(f) && !f.endsWith('.d.ts'));
export const scripts = files.filter((f) => f.endsWith('.sh'));
export const docs = files.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')));

// Parsed once per test worker: doc-paths and doc-names both read every source's comments, and the
// inner loop's workers share modules (isolate: false).
const parsedFiles = new Map<string, ts.SourceFile>();
let texts: Array<{ file: string; text: string }> | undefined;

/** A JavaScript or TypeScript file as the compiler reads it. */
export function parsed(file: string): ts.SourceFile {
  let source = parsedFiles.get(file);
  if (!source) {
    const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.[cm]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
    source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true, kind);
    parsedFiles.set(file, source);
  }
  return source;
}

/** The comments of a JavaScript or TypeScript file, as the compiler sees them (not strings, not regexes). */
export function comments(file: string): string[] {
  const source = parsed(file);
  const text = source.text;
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => ranges?.forEach((r) => seen.set(r.pos, text.slice(r.pos, r.end)));
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getTrailingCommentRanges(text, node.end));
    // getChildren includes tokens, so a comment before a closing brace is found too.
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  // A leading shebang is not a comment.
  return [...seen.values()].filter((c) => !c.startsWith('#!'));
}

export function shellComments(file: string): string[] {
  return read(file)
    .split('\n')
    .flatMap((line) => {
      const m = /(?:^|\s)#(?!!)(.*)$/.exec(line);
      return m ? [m[1]!] : [];
    });
}

/** Every text a reader is told something in: each code comment, each shell comment, each doc whole. */
export function explainingTexts(): Array<{ file: string; text: string }> {
  texts ??= [
    ...sources.flatMap((file) => comments(file).map((text) => ({ file, text }))),
    ...scripts.flatMap((file) => shellComments(file).map((text) => ({ file, text }))),
    ...docs.map((file) => ({ file, text: read(file) })),
  ];
  return texts;
}
