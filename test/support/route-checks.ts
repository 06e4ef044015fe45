// Assertions every route test makes alike: the error envelope, and the refusals of a call without
// the right key (route-app.ts makes the calls).
import { expect, vi } from 'vitest';
import { lifecycle } from '../../platform/lifecycle.js';
import { ADMIN, type Answer, type CallOptions, type RouteApp } from './route-app.js';

/** An error answer: this status, this code, and the envelope { error: { code, message, request_id } }. */
export function expectError(res: Answer, status: number, code: string): void {
  expect({ status: res.status, code: res.json?.error?.code }, res.text).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.json.error.message).toEqual(expect.any(String));
  expect(res.json.error.message.length).toBeGreaterThan(0);
  // The id the answer's X-Request-Id header carries, so a caller can quote it.
  expect(res.json.error.request_id).toEqual(expect.any(String));
  expect(res.json.error.request_id).toBe(res.headers.get('x-request-id'));
}

/**
 * No key and an unknown key are 401 (with WWW-Authenticate: Bearer); the other kind of key is 403:
 * the admin token on a project's route, a project's key on an admin route.
 */
export async function expectKeyRefusals(rt: RouteApp, method: string, path: string, needs: { project: string } | 'admin', opts: CallOptions = {}): Promise<void> {
  const none = await rt.call(method, path, { ...opts, token: undefined });
  expectError(none, 401, 'unauthorized');
  expect(none.headers.get('www-authenticate')).toBe('Bearer');
  expectError(await rt.call(method, path, { ...opts, token: 'dc_not-a-key-of-anyone-0123456789' }), 401, 'unauthorized');
  const other = needs === 'admin' ? await projectKey(rt) : ADMIN;
  expectError(await rt.call(method, path, { ...opts, token: other }), 403, 'forbidden');
}

// Per app: without isolation (vitest.fast.config.ts) this module outlives one file's app.
const spare = new WeakMap<RouteApp, Promise<string>>();
/** A project key for calls that must be refused for being one (made once per app). */
function projectKey(rt: RouteApp): Promise<string> {
  let key = spare.get(rt);
  if (!key) spare.set(rt, (key = rt.createProject({ name: 'a project key' }).then((p) => p.api_key)));
  return key;
}

/**
 * Runs fn as if a SIGTERM had arrived (app/runtime.ts onShutdown begins the shutdown). Real
 * shutdown cannot be undone in a process, and without isolation the next file shares this one.
 */
export async function duringShutdown(fn: () => Promise<void>): Promise<void> {
  const stopping = vi.spyOn(lifecycle, 'stopping', 'get').mockReturnValue(true);
  try {
    await fn();
  } finally {
    stopping.mockRestore();
  }
}
