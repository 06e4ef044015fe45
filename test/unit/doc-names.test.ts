// What a comment or doc says a file holds, it holds, where a machine can tell: a function named
// beside its file (`statusOf()` in api/errors.ts, api/errors.ts's `statusOf`) is declared in that file,
// a SQL function dc_… is created somewhere under db/, a migration 00NN_name is a file of
// db/migrations/. doc-paths.test.ts checks that the files themselves exist. An ADR whose Status says
// it is superseded records what was, and is not held to today's names.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { explainingTexts, files, PREFIXES, parsed, read, root, sources } from '../support/repo-text.js';

/** A code file named in text, backticks allowed: domain/tasks/view.ts, `api/errors.ts`. */
const CODE_FILE = `\`?((?:${PREFIXES.map((p) => p.replace('.', '\\.')).join('|')})/[\\w./@-]*\\.(?:ts|tsx|mjs|cjs|js))(?![\\w-])\`?`;
/**
 * An identifier a reader would look up: anything in backticks, a call `name()`, or a camelCase
 * word (a plain word such as "admission" or "DuckDB" may be prose, so it is not taken). A
 * snake_case name is a column, a table or an error code, never a declaration: it is left out.
 */
const IDENT = '(?:`([A-Za-z_$][\\w$]*(?:\\.[A-Za-z_$][\\w$]*)?)(?:\\(\\))?`|\\b([A-Za-z_$][\\w$]*(?:\\.[A-Za-z_$][\\w$]*)?)\\(\\)|\\b([a-z]+[A-Z][\\w$]*)\\b)';
/** `name` in|of|( file, or file's|file `name`. */
const BEFORE = new RegExp(`${IDENT} (?:in |of |\\()${CODE_FILE}`, 'g');
const AFTER = new RegExp(`(?<![\\w/.-])${CODE_FILE}(?:'s | )${IDENT}`, 'g');

/** Pairs of (identifier, file) a text names together. */
function namedIdentifiers(text: string): Array<{ name: string; file: string }> {
  const before = [...text.matchAll(BEFORE)].map((m) => ({ name: (m[1] ?? m[2] ?? m[3])!, file: m[4]! }));
  const after = [...text.matchAll(AFTER)].map((m) => ({ name: (m[2] ?? m[3] ?? m[4])!, file: m[1]! }));
  return [...before, ...after].filter(({ name }) => !/^[a-z0-9]+(_[a-z0-9]+)+$/.test(name));
}

/** A SQL function or trigger's name (dc_accept_task), not a path, a prefix (dc_bench_) or a key (dc_not-a-key). */
const SQL_NAME = /(?<![\w/.-])dc_[a-z]+(?:_[a-z]+)*(?!\w|\.\w|[-*])/g;
/** A migration's name (0000_baseline), not one inside a path, which doc-paths.test.ts checks. */
const MIGRATION = /(?<![\w/.-])\d{4}_[a-z][a-z0-9_]*/g;

/** The names a file declares: functions, classes, types, variables, members, exports. */
const declared = new Map<string, Set<string>>();
function declarations(file: string): Set<string> {
  let names = declared.get(file);
  if (names) return names;
  names = new Set();
  const visit = (node: ts.Node) => {
    const name = (node as { name?: ts.Node }).name;
    if (name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name))) names!.add(name.text);
    ts.forEachChild(node, visit);
  };
  visit(parsed(file));
  declared.set(file, names);
  return names;
}

/** The repository file a named path stands for: a .js of an ESM import names its .ts or .tsx. */
function codeFile(path: string): string | undefined {
  const candidates = [path, path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx')];
  return candidates.find((c) => existsSync(join(root, c)));
}

/** Why an identifier named beside a file is not there, if it is not (a missing file is doc-paths' to report). */
function missingIdentifier(name: string, path: string): string | undefined {
  const file = codeFile(path);
  if (!file) return undefined;
  const names = declarations(file);
  const absent = name.split('.').filter((part) => !names.has(part));
  return absent.length > 0 ? `${path} declares no ${absent.join('.')}` : undefined;
}

/** Metric names the service registers (platform/metrics.ts): dc_ names that are not SQL. */
const metrics = new Set(
  sources
    .filter((f) => !f.startsWith('test/'))
    .flatMap((f) => [...read(f).matchAll(/name: '(dc_[a-z_]+)'/g)].map((m) => m[1]!)),
);
const sqlText = files.filter((f) => f.startsWith('db/') && f.endsWith('.sql')).map(read).join('\n');
const sqlDefined = new Set([...sqlText.matchAll(/CREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|TRIGGER|PROCEDURE)\s+"?(?:public\.)?"?(dc_\w+)/gi)].map((m) => m[1]!));
const migrations = new Set(files.filter((f) => /^db\/migrations\/\d{4}_.*\.sql$/.test(f)).map((f) => f.slice('db/migrations/'.length, -'.sql'.length)));

const isMetric = (name: string) => metrics.has(name) || metrics.has(name.replace(/_(sum|count|bucket)$/, ''));

function problemsIn(file: string, text: string): string[] {
  const identifiers = namedIdentifiers(text).flatMap(({ name, file: path }) => {
    const why = missingIdentifier(name, path);
    return why ? [`${file}: ${why}`] : [];
  });
  const sql = [...text.matchAll(SQL_NAME)].map((m) => m[0]).filter((n) => !isMetric(n) && !sqlDefined.has(n));
  const migration = [...text.matchAll(MIGRATION)].map((m) => m[0]).filter((n) => !migrations.has(n));
  return [...identifiers, ...sql.map((n) => `${file}: no CREATE FUNCTION ${n} under db/`), ...migration.map((n) => `${file}: no migration db/migrations/${n}.sql`)];
}

describe('names in comments and docs', () => {
  it('recognises the names precisely', () => {
    const text = [
      '`toActivityFailure` (`activities/failure.ts`) and isDatabaseUnavailable (db/unavailable.ts), then',
      'api/validate.ts `validationError`, platform/crypto.ts randomToken, `RunStarter.start()` in domain/x.ts,',
      'but not DuckDB (test/support/pyreaders.ts), the admission in domain/tasks/admission/index.ts, `task_counts` (db/schema.ts),',
      '`tsc` of client/tsconfig.build.json.',
    ].join('\n');
    expect(namedIdentifiers(text)).toEqual([
      { name: 'toActivityFailure', file: 'activities/failure.ts' },
      { name: 'isDatabaseUnavailable', file: 'db/unavailable.ts' },
      { name: 'RunStarter.start', file: 'domain/x.ts' },
      { name: 'validationError', file: 'api/validate.ts' },
      { name: 'randomToken', file: 'platform/crypto.ts' },
    ]);
    expect(missingIdentifier('statusOf', 'api/errors.js')).toBeUndefined();
    expect(missingIdentifier('DomainError.labelled', 'domain/errors.ts')).toBeUndefined();
    expect(missingIdentifier('statusOff', 'api/errors.ts')).toBe('api/errors.ts declares no statusOff');
    const sql = 'dc_accept_task(…), dc_tasks_queued, the dc_bench_ prefix, dc_not-a-key, test/fuzz/dc_fuzz_hooks.py, dc_no_such.';
    expect([...sql.matchAll(SQL_NAME)].map((m) => m[0])).toEqual(['dc_accept_task', 'dc_tasks_queued', 'dc_no_such']);
    expect(isMetric('dc_tasks_queued') && isMetric('dc_export_duration_seconds_sum')).toBe(true);
    expect([...'0011_task_counts, db/migrations/0011_task_counts.sql'.matchAll(MIGRATION)].map((m) => m[0])).toEqual(['0011_task_counts']);
  });

  const superseded = (file: string, text: string) => file.startsWith('docs/adr/') && /^Status:.*\bsuperseded\b(?! in part)/im.test(text);
  const texts = explainingTexts().filter(({ file, text }) => !superseded(file, text));

  it('finds names to check and SQL functions, metrics and migrations to compare them with', () => {
    expect(texts.flatMap(({ text }) => namedIdentifiers(text)).length).toBeGreaterThan(20);
    expect(sqlDefined.size).toBeGreaterThan(5);
    expect(metrics.size).toBeGreaterThan(5);
    expect(migrations.size).toBeGreaterThan(0);
  });

  it('every function, SQL function and migration a comment or doc names beside its place is there', () => {
    const problems = texts.flatMap(({ file, text }) => problemsIn(file, text));
    expect([...new Set(problems)]).toEqual([]);
  });
});
