// docs/api.md is the API's reference in the repository, so it must not drift from the code: every
// route of /openapi.json has a `### METHOD /path` heading there, no doc names a route the service
// lacks, and the error table holds every code the service answers with, at the status it answers.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { statusOf } from '../../api/errors.js';
import { configureLogging } from '../../platform/logger.js';
import { offlineApp } from '../../scripts/openapi-document.js';
import { API_ERROR_CODES, type ApiErrorCode, TASK_ERROR_CODES } from '../../model/errors.js';

configureLogging('error', { pretty: false });
const api = offlineApp('http://dc.example:8080');
afterAll(() => api.close());

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const apiDoc = read('docs/api.md');

/** Pages the service serves that are not the API (test/unit/openapi.test.ts leaves them out too). */
const NOT_API = ['GET /', 'GET /mails', 'GET /operator', 'POST /operator', 'GET /docs', 'GET /openapi.json'];

async function documentedRoutes(): Promise<string[]> {
  const doc = (await (await api.app.request('/openapi.json')).json()) as { paths: Record<string, object> };
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
}

/** `### POST /v1/tasks/{task_id}/cancel`: the headings that document a route. */
const headings = (md: string) => [...md.matchAll(/^#{2,4} (GET|POST|PUT|PATCH|DELETE) (\/\S*)\s*$/gm)].map((m) => `${m[1]} ${m[2]}`);

/** Every `METHOD /path` a text names, without its query string or trailing punctuation. */
const mentions = (md: string) => [...md.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[\w/{}.:?=&-]*)/g)].map((m) => `${m[1]} ${m[2]!.replace(/\?.*$/, '').replace(/[.:]+$/, '')}`);

/** Path parameters spelled either way (:id, {task_id}) compare equal. */
const shape = (route: string) => route.replace(/\{[^}]+\}|:[a-z_]+/g, '{}');

/** The code column of the first table under a heading. */
function tableCodes(md: string, heading: string): string[] {
  const start = md.indexOf(`\n${heading}\n`);
  expect(start, `docs/api.md has a "${heading}" section`).toBeGreaterThan(-1);
  const rows = md.slice(start).split('\n').slice(1);
  const first = rows.findIndex((l) => l.startsWith('|'));
  const table = rows.slice(first, first + rows.slice(first).findIndex((l) => !l.startsWith('|')));
  return table.slice(2).map((row) => /^\| `([a-z_]+)` \|/.exec(row)?.[1] ?? `unreadable row: ${row}`);
}

/** Every code the service answers with: the typed vocabulary (DomainError.code is one of them). */
const serviceErrorCodes = (): Set<string> => new Set<string>(API_ERROR_CODES);

describe('docs/api.md', () => {
  it('has a heading for every route of /openapi.json, and none for a route it lacks', async () => {
    const routes = await documentedRoutes();
    expect(routes.length).toBeGreaterThan(25);
    const documented = headings(apiDoc);
    expect(routes.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((r) => !routes.includes(r))).toEqual([]);
    // One heading per route: a second one would be a stale copy.
    expect(documented.filter((r, i) => documented.indexOf(r) !== i)).toEqual([]);
  });

  it('names no route that the service lacks, here or in any other doc', async () => {
    const routes = new Set([...(await documentedRoutes()), ...NOT_API]);
    expect([...new Set(mentions(apiDoc))].filter((r) => !routes.has(r))).toEqual([]);
    const shapes = new Set([...routes].map(shape));
    const docs = ['README.md', ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const unknown = docs.flatMap((f) => mentions(read(f)).filter((r) => !shapes.has(shape(r)) && !r.startsWith('GET /console/')).map((r) => `${f}: ${r}`));
    expect([...new Set(unknown)]).toEqual([]);
  });

  it('lists every error code the service answers with, at the status it answers with', () => {
    const table = tableCodes(apiDoc, '## Errors');
    const service = serviceErrorCodes();
    expect(service.size).toBeGreaterThan(25);
    expect([...service].filter((c) => !table.includes(c)).sort()).toEqual([]);
    // And no code the service never answers with.
    expect(table.filter((c) => !service.has(c))).toEqual([]);
    for (const row of apiDoc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)) {
      expect(`${row[1]} ${row[2]}`).toBe(`${row[1]} ${statusOf(row[1]! as ApiErrorCode)}`);
    }
  });

  it('lists exactly the error codes a failed task can carry', () => {
    expect(tableCodes(apiDoc, '### Task error codes').sort()).toEqual([...TASK_ERROR_CODES].sort());
  });

  it('shows the error envelope', () => {
    expect(apiDoc).toMatch(/\{ "error": \{ "code": .*"message": .*"request_id": /);
  });
});
