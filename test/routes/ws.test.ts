// GET /v1/ws in process (route-app.ts): the refusals before any upgrade. app.request() cannot
// upgrade a connection, so a WebSocket session itself is the e2e tests' (test/e2e/ws.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duringShutdown, expectError } from '../support/route-checks.js';
import { ADMIN, type Project, type RouteApp, startRouteApp } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

let rt: RouteApp;
let a: Project;
beforeAll(async () => {
  rt = await startRouteApp();
  a = await rt.createProject({ name: 'a' });
});
afterAll(() => rt?.close());

const upgrade = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
const ws = (opts: { token?: string; query?: string; headers?: Record<string, string> } = {}) =>
  rt.call('GET', `/v1/ws${opts.query ?? ''}`, { token: opts.token, headers: { ...upgrade, ...opts.headers } });

describe('GET /v1/ws refuses before the upgrade', () => {
  it('a plain GET: 426 upgrade_required with Upgrade: websocket', async () => {
    const res = await rt.call('GET', '/v1/ws', { token: a.api_key });
    expectError(res, 426, 'upgrade_required');
    expect(res.headers.get('upgrade')).toBe('websocket');
  });

  it('an incomplete handshake (no Sec-WebSocket-Key, another version, a bad subprotocol list): 426 upgrade_required, as documented', async () => {
    for (const headers of <Array<Record<string, string>>>[
      { 'sec-websocket-key': '' },
      { 'sec-websocket-key': 'not a key' },
      { 'sec-websocket-version': '' },
      { 'sec-websocket-version': '12' },
      { 'sec-websocket-protocol': 'download-center, download-center' },
      { 'sec-websocket-protocol': 'a b' },
    ]) {
      const res = await ws({ token: a.api_key, headers });
      expectError(res, 426, 'upgrade_required');
      expect(res.headers.get('upgrade')).toBe('websocket');
    }
    const old = await ws({ token: a.api_key, headers: { 'sec-websocket-version': '12' } });
    expect(old.headers.get('sec-websocket-version')).toBe('13');
    // Before the key is read: the answer is the same without one.
    expectError(await ws({ headers: { 'sec-websocket-key': '' } }), 426, 'upgrade_required');
  });

  it('no key, or a key that is not valid (header, subprotocol or query): 401', async () => {
    expectError(await ws(), 401, 'unauthorized');
    expectError(await ws({ token: 'dc_not-a-key-of-anyone' }), 401, 'unauthorized');
    expectError(await ws({ headers: { 'sec-websocket-protocol': 'download-center, bearer.dc_not-a-key' } }), 401, 'unauthorized');
    expectError(await ws({ query: '?access_token=dc_not-a-key' }), 401, 'unauthorized');
  });

  it("the admin token (a socket follows one project's tasks): 403", async () => {
    expectError(await ws({ token: ADMIN }), 403, 'forbidden');
  });

  it('a browser page of another origin, even with a good key: 403', async () => {
    expectError(await ws({ token: a.api_key, headers: { origin: 'https://evil.example' } }), 403, 'forbidden');
  });

  it('a process that is shutting down: 503 with Retry-After', async () => {
    await duringShutdown(async () => {
      const res = await ws({ token: a.api_key });
      expectError(res, 503, 'shutting_down');
      expect(res.headers.get('retry-after')).toBe('1');
    });
  });
});

itCalledItsRoutes('ws', () => rt);
