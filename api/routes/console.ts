// GET / (docs/console.md): the web console, built from console/ by scripts/build-console.mjs into
// console/dist/ (npm install, npm run build; the image copies it). index.html is answered with
// no-store and a strict Content-Security-Policy (scripts and styles of this origin only, no inline
// code, calls and WebSockets to this origin only, no framing); the assets it names carry a hash of
// their content and are cached for good. Without a build, a clear 503 says how to make one.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { DomainError } from '../../domain/errors.js';
import { projectRoot } from '../../platform/paths.js';
import type { AppEnv } from '../types.js';
import { bodyOf } from '../download.js';

export const consoleDir = join(projectRoot, 'console', 'dist');

const ASSET = /^[a-z]+\.[0-9a-f]{12}\.(js|css)$/;
const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The page's policy. `connect-src 'self'` covers ws(s): of this host in CSP 3; older browsers need it
 * named. `ancestors` is frame-ancestors' value; null leaves the directive out (any page may frame it:
 * only for pages that show and do nothing, operator-page.ts).
 */
export function policy(host: string | undefined, ancestors: string | null = "'none'"): string {
  const ws = host && HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${ws}`,
    "form-action 'self'",
    "base-uri 'none'",
    ...(ancestors === null ? [] : [`frame-ancestors ${ancestors}`]),
  ].join('; ');
}

export const common = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

export const notBuilt = () => new DomainError('console_not_built', 'the web console is not built: run `npm run build:console` (npm install and npm run build do it too)');

export function consoleApp(dir = consoleDir) {
  const app = new Hono<AppEnv>();
  // Assets never change under their name: read and compressed once.
  const cache = new Map<string, { raw: Buffer; gzip: Buffer }>();

  app.get('/', async (c) => {
    const html = await readFile(join(dir, 'index.html')).catch(() => null);
    if (!html) throw notBuilt();
    return c.body(bodyOf(html), 200, {
      ...common,
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': policy(c.req.header('host')),
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
  });

  app.get('/console/:file', async (c) => {
    const file = c.req.param('file');
    if (!ASSET.test(file)) throw new DomainError('not_found', `no such console file: ${file.slice(0, 100)}`);
    let asset = cache.get(file);
    if (!asset) {
      const raw = await readFile(join(dir, file)).catch(() => null);
      if (!raw) throw new DomainError('not_found', `no such console file: ${file} (the console was rebuilt: reload the page)`);
      asset = { raw, gzip: gzipSync(raw) };
      cache.set(file, asset);
    }
    const gzip = /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
    return c.body(bodyOf(gzip ? asset.gzip : asset.raw), 200, {
      ...common,
      'Content-Type': TYPES[file.split('.').pop()!]!,
      'Cache-Control': 'public, max-age=31536000, immutable',
      Vary: 'Accept-Encoding',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    });
  });
  return app;
}
