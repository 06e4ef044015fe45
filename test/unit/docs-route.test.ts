// GET /docs and /docs/scalar.js (api/routes/docs.ts): the page and its script come from the build
// (console/dist/docs/), not from Scalar's packages, which the image does not carry; a missing build
// is a clear 503.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { onError } from '../../api/errors.js';
import { docsApp } from '../../api/routes/docs.js';

function appOver(dir: string) {
  const app = new Hono();
  app.route('/', docsApp(() => ({ openapi: '3.1.0' }), dir));
  app.onError(onError);
  return app;
}

describe('docs route', () => {
  it('answers 503 console_not_built, saying how to build, when the page was not built', async () => {
    const app = appOver(join(tmpdir(), 'no-such-docs-dir'));
    for (const path of ['/docs', '/docs/scalar.js']) {
      const res = await app.request(path);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('console_not_built');
      expect(body.error.message).toContain('npm run build:console');
    }
    expect(await (await app.request('/openapi.json')).json()).toEqual({ openapi: '3.1.0' });
  });

  it('serves the built page and its script (test/unit/openapi.test.ts reads the real build)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dc-docs-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><script src="/docs/scalar.js"></script>');
    writeFileSync(join(dir, 'scalar.js'), 'void 0');
    const app = appOver(dir);
    expect((await app.request('/docs')).headers.get('content-type')).toBe('text/html; charset=utf-8');
    const script = await app.request('/docs/scalar.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe('void 0');
  });
});
