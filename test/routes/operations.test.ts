// The operator's routes in process (route-app.ts): /healthz, /readyz, /metrics, the API's own
// description (/openapi.json, /docs) and the answer to a route that does not exist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duringShutdown, expectError, expectKeyRefusals } from '../support/route-checks.js';
import { ADMIN, type RouteApp, startRouteApp } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

let rt: RouteApp;
beforeAll(async () => {
  rt = await startRouteApp();
});
afterAll(() => rt?.close());

describe('GET /healthz', () => {
  it('is 200 with every check ok, no key needed', async () => {
    const res = await rt.call('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok', checks: { database: 'ok', temporal: 'ok', storage: 'ok' } });
  });

  it('is 503 naming the dependency that is not reachable', async () => {
    rt.temporal.down = true;
    try {
      const res = await rt.call('GET', '/healthz');
      expect(res.status).toBe(503);
      expect(res.json.status).toBe('unavailable');
      // The dependency and that it failed, never the driver's words (this route needs no key).
      expect(res.json.checks).toEqual({ database: 'ok', storage: 'ok', temporal: 'error: unreachable' });
    } finally {
      rt.temporal.down = false;
    }
  });
});

describe('GET /metrics', () => {
  it("is Prometheus text with the task gauges, for the admin's token", async () => {
    const res = await rt.call('GET', '/metrics', { token: ADMIN });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^# HELP dc_/m);
    expect(res.text).toMatch(/^dc_tasks\{/m);
  });

  it('is for the admin (METRICS_PUBLIC is off)', async () => {
    await expectKeyRefusals(rt, 'GET', '/metrics', 'admin');
  });
});

describe('the description of the API and unknown routes', () => {
  it('serves /openapi.json with every route, and /docs', async () => {
    const doc = await rt.call('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.json.openapi).toMatch(/^3\.1/);
    expect(Object.keys(doc.json.paths)).toContain('/v1/tasks');
    const docs = await rt.call('GET', '/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('answers a route that does not exist with 404 in the error envelope', async () => {
    expectError(await rt.call('GET', '/v1/nothing-here'), 404, 'not_found');
  });

  it('answers a method a known path does not take with 405 and Allow', async () => {
    const res = await rt.call('DELETE', '/v1/projects', { token: ADMIN });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    const trace = await rt.call('PATCH', '/healthz'); // (TRACE itself is the fuzzer's: fetch cannot send it)
    expectError(trace, 405, 'method_not_allowed');
    expect(trace.headers.get('allow')).toMatch(/GET/);
  });
});

describe('GET /readyz', () => {
  it('is 200 while the process takes work, 503 from the moment a shutdown begins', async () => {
    const res = await rt.call('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ready' });
    await duringShutdown(async () => {
      const stopping = await rt.call('GET', '/readyz');
      expect(stopping.status).toBe(503);
      expect(stopping.json).toEqual({ status: 'stopping' });
      // /healthz still answers: the process is alive while it drains.
      expect((await rt.call('GET', '/healthz')).status).toBe(200);
    });
  });
});

itCalledItsRoutes('operations', () => rt);
