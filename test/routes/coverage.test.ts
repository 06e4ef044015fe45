// Every documented route has a route test: the table in routes.ts names, for each route of
// /openapi.json, the file that tests it (and that file checks it called it). A new route left out
// of the table fails here; so does a table entry for a route that is no longer documented.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { configureLogging } from '../../platform/logger.js';
import { offlineApp } from '../../scripts/openapi-document.js';
import { ROUTE_TESTS } from './routes.js';

configureLogging('error', { pretty: false });
const api = offlineApp();
afterAll(() => api.close());

it('names a test file for each documented route and method, and no other', () => {
  const doc = api.document() as { paths: Record<string, object> };
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
  expect(documented.length).toBeGreaterThan(25);
  expect(documented.filter((r) => !(r in ROUTE_TESTS))).toEqual([]);
  expect(Object.keys(ROUTE_TESTS).filter((r) => !documented.includes(r))).toEqual([]);
});

it('names only files that exist', () => {
  const files = new Set(readdirSync(fileURLToPath(new URL('.', import.meta.url))));
  expect([...new Set(Object.values(ROUTE_TESTS))].filter((f) => !files.has(`${f}.test.ts`))).toEqual([]);
});
