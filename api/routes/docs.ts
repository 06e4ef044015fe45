// The API reference (docs/api-clients.md): /openapi.json, and /docs, Scalar's page with its script
// served by the API itself (/docs/scalar.js) rather than a CDN, so the page works offline and loads
// nothing from third parties. Both files are made at build time by scripts/build-console.mjs into
// console/dist/docs/: the image carries the one script, not Scalar's packages.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import { DomainError } from '../../domain/errors.js';
import { bodyOf } from '../download.js';
import { consoleDir } from './console.js';

const notBuilt = () => new DomainError('console_not_built', 'the API reference page is built with the web console: run `npm run build:console` (npm install and npm run build do it too)');

export function docsApp(document: () => unknown, dir = join(consoleDir, 'docs')) {
  const app = new Hono();
  // Built on first use: the routes are all mounted by then.
  let doc: unknown;
  app.get('/openapi.json', (c) => c.json((doc ??= document())));
  // Read once: a build replaces them only with the service's next start.
  const files = new Map<string, Promise<Buffer | null>>();
  const read = (name: string) => {
    let file = files.get(name);
    if (!file) files.set(name, (file = readFile(join(dir, name)).catch(() => (files.delete(name), null))));
    return file;
  };
  app.get('/docs', async (c) => {
    const html = await read('index.html');
    if (!html) throw notBuilt();
    return c.body(bodyOf(html), 200, { 'Content-Type': 'text/html; charset=utf-8' });
  });
  app.get('/docs/scalar.js', async (c) => {
    const script = await read('scalar.js');
    if (!script) throw notBuilt();
    return c.body(bodyOf(script), 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=86400' });
  });
  return app;
}
