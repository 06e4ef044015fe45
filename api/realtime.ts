// GET /v1/ws (CONTRACT §5) and the task-event hub it and the sync export share. The upgrade goes
// through the normal middleware, so a bad or missing key is refused with 401 before any upgrade.
import type { Server } from 'node:http';
import { createNodeWebSocket } from '@hono/node-ws';
import { Hono } from 'hono';
import { TaskEvents } from '../lib/events.js';
import { authenticate, requireProject } from './auth.js';
import { ApiError } from './errors.js';
import type { LinkSigner } from './serialize.js';
import type { ApiDeps, AppEnv } from './types.js';
import { CLOSE, Session } from './ws-session.js';

export interface Realtime {
  hub: TaskEvents;
  routes: Hono<AppEnv>;
  /** Hooks the upgrade handler into the HTTP server; closing the server closes the sockets first. */
  attach(server: Server): void;
}

export function createRealtime(deps: ApiDeps, root: Hono<AppEnv>): Realtime {
  const { config } = deps;
  const hub = new TaskEvents(deps.database, config.WS_PROGRESS_INTERVAL_MS);
  const signer: LinkSigner = { baseUrl: config.publicBaseUrl, secret: deps.secrets.linkSecret, ttlSeconds: config.LINK_TTL_SECONDS };
  const nodeWs = createNodeWebSocket({ app: root });
  // @hono/node-ws builds its WebSocketServer without options; ws reads maxPayload from them at
  // each upgrade, and closes a connection that sends a larger frame with 1009.
  nodeWs.wss.options.maxPayload = config.WS_MAX_FRAME_BYTES;
  const sessions = new Set<Session>();

  const routes = new Hono<AppEnv>();
  routes.get(
    '/',
    (c, next) => {
      if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
        throw new ApiError(426, 'upgrade_required', 'GET /v1/ws is a WebSocket endpoint: send Upgrade: websocket', undefined, { Upgrade: 'websocket' });
      }
      return next();
    },
    authenticate(deps, { allowQueryToken: true }),
    nodeWs.upgradeWebSocket((c) => {
      const project = requireProject(c.get('principal'));
      let session: Session | undefined;
      return {
        onOpen(_evt, ws) {
          session = new Session(ws.raw!, project, { db: deps.database.db, hub, signer, config });
          sessions.add(session);
        },
        onMessage(evt, ws) {
          session?.message(evt.data as string | ArrayBuffer).catch((err: Error) => {
            console.error('[ws] message failed:', err.message);
            ws.close(1011, 'internal error');
          });
        },
        onClose() {
          session?.dispose();
          if (session) sessions.delete(session);
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
        for (const s of sessions) s.close(CLOSE.goingAway, 'server shutting down');
        // A peer that does not answer the close frame within a second is cut off.
        setTimeout(() => {
          for (const ws of nodeWs.wss.clients) ws.terminate();
        }, 1000).unref();
        return close(cb);
      }) as typeof server.close;
      server.once('close', () => void hub.close());
    },
  };
}
