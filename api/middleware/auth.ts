// Who is calling: the admin token, a project's API key or an operator session's token (Bearer; at
// the WebSocket upgrade also the subprotocol `bearer.<key>` or `?access_token=`). `projectOnly` and
// `adminOnly` guard the routes that need one; operator.ts the few an operator token may call too.
import { createMiddleware } from 'hono/factory';
import { DomainError } from '../../domain/errors.js';
import { cachedProjectByApiKey } from '../../domain/projects/key-cache.js';
import { cachedOperatorSession } from '../../domain/projects/session-cache.js';
import { OPERATOR_TOKEN_PREFIX } from '../../domain/projects/sessions.js';
import { safeEqual } from '../../platform/crypto.js';
import { assertOperatorMayCall } from './operator.js';
import type { ApiDeps, AppEnv, Principal } from '../types.js';

/** The subprotocol a browser offers its key in: a page cannot set Authorization on a WebSocket. */
export const BEARER_PROTOCOL = 'bearer.';

/** The key of a `Sec-WebSocket-Protocol: download-center, bearer.<key>` header, if there is one. */
export function protocolToken(header: string | undefined): string | undefined {
  const offered = header?.split(',').map((p) => p.trim()).find((p) => p.startsWith(BEARER_PROTOCOL));
  return offered?.slice(BEARER_PROTOCOL.length) || undefined;
}

export function authenticate(deps: ApiDeps, opts: { allowQueryToken?: boolean } = {}) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const header = c.req.header('authorization');
    let token = header?.match(/^Bearer\s+(\S+)$/i)?.[1];
    // At the upgrade, the subprotocol keeps the key out of URLs (and so out of proxies' access logs).
    if (!token && opts.allowQueryToken) token = protocolToken(c.req.header('sec-websocket-protocol')) ?? queryToken(c.req.query('access_token'));
    if (!token) throw new DomainError('unauthorized', 'send Authorization: Bearer <api_key>');
    const principal = await resolvePrincipal(deps, token);
    // The one gate for operator tokens: any route not listed in operator.ts is 403 here.
    if (principal.kind === 'operator') assertOperatorMayCall(principal, c.req.method, c.req.path);
    c.set('principal', principal);
    // A WebSocket outlives this request: it checks the same credential again while it is open.
    // Only a refusal ends it: a database that cannot answer for a moment says nothing about the key.
    c.set('recheck', () => resolvePrincipal(deps, token).then(
      () => true,
      (err: unknown) => !(err instanceof DomainError && err.code === 'unauthorized'),
    ));
    await next();
  });
}

/** `?access_token=` (clients that cannot set headers) takes project keys only: an operator token never rides in a URL. */
function queryToken(value: string | undefined): string | undefined {
  if (value?.startsWith(OPERATOR_TOKEN_PREFIX)) throw new DomainError('unauthorized', 'an operator token goes in Authorization or the WebSocket subprotocol, never in the URL');
  return value;
}

async function resolvePrincipal(deps: ApiDeps, token: string): Promise<Principal> {
  if (safeEqual(token, deps.secrets.adminToken)) return { kind: 'admin' };
  if (token.startsWith(OPERATOR_TOKEN_PREFIX)) {
    const found = await cachedOperatorSession(deps.database, token);
    if (!found) throw new DomainError('unauthorized', 'the operator session is not valid (expired, revoked or ended by a key rotation)');
    const { session, project } = found;
    return { kind: 'operator', project, operatorId: session.operatorId, permissions: session.permissions, sessionId: session.id, taskId: session.taskId };
  }
  const project = await cachedProjectByApiKey(deps.database, token);
  if (!project) throw new DomainError('unauthorized', 'the API key is not valid');
  return { kind: 'project', project };
}

/** The caller must hold a project key (an operator token is refused: 403); the project is then `c.var.project`. */
export const projectOnly = createMiddleware<AppEnv>(async (c, next) => {
  const p = c.get('principal');
  if (p.kind !== 'project') throw new DomainError('forbidden', 'this call needs a project API key');
  c.set('project', p.project);
  await next();
});

export const adminOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (c.get('principal').kind !== 'admin') throw new DomainError('forbidden', 'this call needs the admin token');
  await next();
});
