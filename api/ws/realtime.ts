// GET /v1/ws (docs/api.md#get-v1ws) and the task-event hub it and the sync export share. The upgrade goes
// through the normal middleware, so a bad or missing key is refused with 401 before any upgrade,
// and a browser page of a foreign origin with 403 (WS_ALLOWED_ORIGINS; docs/SECURITY.md).
import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { createNodeWebSocket } from '@hono/node-ws';
import { type Context, Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { onProjectsChanged } from '../../domain/projects/key-cache.js';
import type { TaskEvents } from '../../domain/tasks/events.js';
import { signerFor } from '../../domain/tasks/view.js';
import { DomainError } from '../../domain/errors.js';
import { type Config, normalizeOrigin } from '../../platform/config.js';
import { lifecycle } from '../../platform/lifecycle.js';
import { logger } from '../../platform/logger.js';
import { metrics } from '../../platform/metrics.js';
import { authenticate, BEARER_PROTOCOL } from '../middleware/auth.js';
import { operatorScope, projectOrOperator, taskScope } from '../middleware/operator.js';
import type { ApiContext, AppEnv } from '../types.js';
import { CLOSE, Session } from './session.js';

export interface Realtime {
  hub: TaskEvents;
  routes: Hono<AppEnv>;
  /** Hooks the upgrade handler into the HTTP server; closing the server closes the sockets first. */
  attach(server: Server): void;
}

export function createRealtime(deps: ApiContext, root: Hono<AppEnv>): Realtime {
  const { config, hub, signer } = deps;
  const nodeWs = createNodeWebSocket({ app: root });
  // @hono/node-ws builds its WebSocketServer without options; ws reads maxPayload from them at
  // each upgrade, and closes a connection that sends a larger frame with 1009.
  nodeWs.wss.options.maxPayload = config.WS_MAX_FRAME_BYTES;
  // A browser offering its key as the subprotocol `bearer.<key>` (middleware/auth.ts) also offers
  // `download-center`: that one is chosen, so the key is never echoed back in the answer.
  nodeWs.wss.options.handleProtocols = (offered: Set<string>) => [...offered].find((p) => !p.startsWith(BEARER_PROTOCOL)) ?? false;
  const sessions = new Set<Session>();
  let closing = false;
  // A rotation or revocation anywhere reaches every open socket at once, not at its next timer.
  const unwatch = onProjectsChanged(deps.database.db, () => {
    for (const s of sessions) void s.checkCredential();
  });

  /** Full or shutting down: a clear 503 at the upgrade, never a reset connection. */
  const capacity = createMiddleware<AppEnv>(async (_c, next) => {
    // From the first moment of a shutdown (/readyz 503) until the server closes, no new socket.
    if (closing || lifecycle.stopping) throw new DomainError('shutting_down', 'this API process is shutting down; connect again (to another process)', { retryAfter: 1 });
    if (sessions.size >= config.WS_MAX_CONNECTIONS) {
      throw new DomainError('too_many_connections', `this API process holds its maximum of ${config.WS_MAX_CONNECTIONS} WebSocket connections (WS_MAX_CONNECTIONS)`, { retryAfter: 5 });
    }
    await next();
  });

  const routes = new Hono<AppEnv>();
  routes.get(
    '/',
    refusalsWithBody,
    (c, next) => {
      // @hono/node-ws hands every upgrade to the app as a GET: the request's own method is the incoming
      // one's. Hono runs this GET route for a HEAD too, which is answered as the GET (426).
      const method = incomingOf(c)?.method ?? 'GET';
      if (method !== 'GET' && method !== 'HEAD') {
        c.header('Allow', 'GET, HEAD');
        throw new DomainError('method_not_allowed', `/v1/ws does not take ${method}; it takes GET, HEAD`);
      }
      const missing = handshakeFault(c);
      if (missing) throw new DomainError('upgrade_required', `GET /v1/ws is a WebSocket endpoint: ${missing}`);
      return next();
    },
    originGuard(config),
    capacity,
    authenticate(deps, { allowQueryToken: true }),
    projectOrOperator,
    nodeWs.upgradeWebSocket((c) => {
      const project = c.get('project');
      const operatorId = operatorScope(c);
      const taskId = taskScope(c);
      const recheck = c.get('recheck');
      // The links its frames carry: the project's, or the operator session's (recorded as theirs).
      const p = c.get('principal');
      const socketSigner = signerFor(signer, project, p.kind === 'operator' ? p.sessionId : undefined);
      let session: Session | undefined;
      return {
        onOpen(_evt, ws) {
          session = new Session(ws.raw!, project, { db: deps.database.db, hub, signer: socketSigner, config, recheck, operatorId, taskId });
          sessions.add(session);
          metrics.wsConnections.inc();
        },
        onMessage(evt, ws) {
          session?.message(evt.data as string | ArrayBuffer).catch((err: Error) => {
            logger('ws').error({ err, project_id: project.id }, 'message failed');
            ws.close(1011, 'internal error');
          });
        },
        onClose() {
          session?.dispose();
          if (session && sessions.delete(session)) metrics.wsConnections.dec();
        },
      };
    }),
  );

  return {
    hub,
    routes,
    attach(server) {
      nodeWs.injectWebSocket(server);
      const close = server.close.bind(server);
      // Open sockets would keep server.close() waiting forever: say goodbye to them first.
      server.close = ((cb?: (err?: Error) => void) => {
        closing = true;
        for (const s of sessions) s.close(CLOSE.goingAway, 'server shutting down');
        // A peer that does not answer the close frame within a second is cut off.
        setTimeout(() => {
          for (const ws of nodeWs.wss.clients) ws.terminate();
        }, 1000).unref();
        return close(cb);
      }) as typeof server.close;
      server.once('close', () => {
        unwatch();
        void hub.close();
      });
    },
  };
}

/** What ws accepts as a key (16 bytes in base64) and a subprotocol list (RFC 7230 tokens, no repeats). */
const WS_KEY = /^[+/0-9A-Za-z]{22}==$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * What a request lacks to be a WebSocket upgrade (RFC 6455 4.1), or nothing. Checked here, before
 * the key is read: ws would otherwise refuse a handshake it cannot take with a bare 400 of its own,
 * which the document does not promise; every such request is a 426 upgrade_required, with the
 * version this server speaks. Both Upgrade and Connection too: Node hands a request to the upgrade
 * handler only with `Connection: upgrade`, so `Upgrade: websocket` alone would reach @hono/node-ws
 * as a plain request, which it answers with an empty 200.
 */
function handshakeFault(c: Context): string | undefined {
  const connection = (c.req.header('connection') ?? '').toLowerCase().split(',').map((t) => t.trim());
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket' || !connection.includes('upgrade')) return 'send Upgrade: websocket and Connection: Upgrade';
  if (!WS_KEY.test(c.req.header('sec-websocket-key') ?? '')) return 'send a Sec-WebSocket-Key of 16 bytes in base64';
  if (!['13', '8'].includes(c.req.header('sec-websocket-version') ?? '')) {
    c.header('Sec-WebSocket-Version', '13');
    return 'send Sec-WebSocket-Version: 13';
  }
  const protocols = c.req.header('sec-websocket-protocol')?.split(',').map((p) => p.trim());
  if (protocols && (!protocols.every((p) => TOKEN.test(p)) || new Set(protocols).size !== protocols.length)) return 'Sec-WebSocket-Protocol must list distinct tokens';
  return undefined;
}

/** The IncomingMessage under a request: set by @hono/node-server, and by @hono/node-ws at an upgrade. */
function incomingOf(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/**
 * Cross-site WebSocket hijacking guard. Browsers always send Origin on a WebSocket upgrade and a page
 * cannot forge it; other clients (servers, CLIs) send none and are let through, as the key is what
 * authenticates them. A browser page may connect from the service's own origin (the Host it called,
 * with the scheme of this connection, or PUBLIC_BASE_URL's) or an origin of WS_ALLOWED_ORIGINS
 * (`*` allows every one); any other gets 403 forbidden before the upgrade and before the key is read.
 */
export function originGuard(config: Pick<Config, 'publicBaseUrl' | 'WS_ALLOWED_ORIGINS'>) {
  const publicOrigin = normalizeOrigin(new URL(config.publicBaseUrl).origin);
  const listed = new Set(config.WS_ALLOWED_ORIGINS);
  return createMiddleware<AppEnv>(async (c, next) => {
    const origin = c.req.header('origin');
    if (origin === undefined || listed.has('*')) return next();
    const o = normalizeOrigin(origin);
    const host = c.req.header('host');
    const scheme = (incomingOf(c)?.socket as TLSSocket | undefined)?.encrypted ? 'https' : 'http';
    const own = host ? normalizeOrigin(`${scheme}://${host}`) : null;
    if (o !== null && (o === own || o === publicOrigin || listed.has(o))) return next();
    throw new DomainError('forbidden', `WebSocket connections from the origin ${JSON.stringify(origin.slice(0, 200))} are not allowed (WS_ALLOWED_ORIGINS)`);
  });
}

/**
 * @hono/node-ws answers a refused upgrade with a bare status line and no body. This swaps that line
 * for the whole answer (the usual JSON error with its headers), so a client sees why, as on any route.
 */
const refusalsWithBody = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const incoming = incomingOf(c);
  // Only at an upgrade: @hono/node-ws hands the app no ServerResponse (`outgoing`).
  if (!incoming || (c.env as { outgoing?: unknown }).outgoing !== undefined || c.res.status < 400) return;
  const body = Buffer.from(await c.res.clone().arrayBuffer());
  const lines = [`HTTP/1.1 ${c.res.status} ${STATUS_CODES[c.res.status] ?? ''}`];
  c.res.headers.forEach((value, name) => {
    if (!['content-length', 'connection', 'transfer-encoding'].includes(name)) lines.push(`${name}: ${value}`);
  });
  lines.push(`Content-Length: ${body.length}`, 'Connection: close');
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  const socket = incoming.socket;
  const end = socket.end.bind(socket);
  socket.end = ((..._args: unknown[]) => {
    socket.end = end;
    return end(Buffer.concat([head, body]));
  }) as typeof socket.end;
});
