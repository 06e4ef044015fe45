// The API reference (docs/api.md): /openapi.json, and /docs, Scalar's page with its script served
// from our own node_modules (/docs/scalar.js) rather than a CDN, so the page works offline and
// loads nothing from third parties.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Scalar } from '@scalar/hono-api-reference';
import { Hono } from 'hono';
import { bodyOf } from '../download.js';

const SCALAR_SCRIPT = createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');

export function docsApp(document: () => unknown) {
  const app = new Hono();
  // Built on first use: the routes are all mounted by then.
  let doc: unknown;
  app.get('/openapi.json', (c) => c.json((doc ??= document())));
  app.get(
    '/docs',
    Scalar({
      url: '/openapi.json',
      cdn: '/docs/scalar.js',
      pageTitle: 'Download Center API',
      // Scalar's default fonts come from its CDN; the system's fonts will do.
      withDefaultFonts: false,
    }),
  );
  let script: Promise<Buffer> | undefined;
  app.get('/docs/scalar.js', async (c) => {
    const body = await (script ??= readFile(SCALAR_SCRIPT));
    return c.body(bodyOf(body), 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=86400' });
  });
  return app;
}
