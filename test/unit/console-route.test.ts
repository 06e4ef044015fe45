// GET / and /console/* (api/routes/console.ts): a missing build is a clear 503, asset names are
// checked before any file is read, and a built page carries its policy and cache headers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { onError } from '../../api/errors.js';
import { consoleApp } from '../../api/routes/console.js';

function appOver(dir: string) {
  const app = new Hono();
  app.route('/', consoleApp(dir));
  app.onError(onError);
  return app;
}

describe('console route', () => {
  it('answers 503 console_not_built, saying how to build, when console/dist is missing', async () => {
    const res = await appOver(join(tmpdir(), 'no-such-console-dir')).request('/');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('console_not_built');
    expect(body.error.message).toContain('npm run build:console');
  });

  it('serves index.html with no-store and the policy, hashed assets as immutable, others 404', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dc-console-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>x</title>');
    writeFileSync(join(dir, 'app.0123456789ab.js'), 'console.log(1)');
    const app = appOver(dir);
    const page = await app.request('/', { headers: { host: 'dc.example:8080' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws://dc.example:8080 wss://dc.example:8080; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    // A Host that is not a plain host[:port] is left out of the policy.
    expect((await app.request('/', { headers: { host: "x; script-src 'unsafe-inline'" } })).headers.get('content-security-policy')).toContain("connect-src 'self';");
    const js = await app.request('/console/app.0123456789ab.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await app.request('/console/app.0123456789ab.js')).headers.get('content-encoding')).toBeNull();
    expect(js.headers.get('content-encoding')).toBe('gzip');
    for (const path of ['/console/..%2Fpackage.json', '/console/index.html', '/console/app.ffffffffffff.js']) {
      expect((await app.request(path)).status).toBe(404);
    }
  });
});
