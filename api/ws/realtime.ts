// GET /v1/ws (CONTRACT §5) and the task-event hub it and the sync export share. The upgrade goes
// through the normal middleware, so a bad or missing key is refused with 401 before any upgrade.
import type { Server } from 'node:http';
import { createNodeWebSocket } from '@hono/node-ws';
import { Hono } from 'hono';
import type { TaskEvents } from '../../domain/tasks/events.js';
import { DomainError } from '../../domain/errors.js';
import { authenticate, projectOnly } from '../middleware/auth.js';
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
  const sessions = new Set<Session>();

  const routes = new Hono<AppEnv>();
  routes.get(
    '/',
    (c, next) => {
      if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
        throw new DomainError('upgrade_required', 'GET /v1/ws is a WebSocket endpoint: send Upgrade: websocket');
      }
      return next();
    },
    authenticate(deps, { allowQueryToken: true }),
    projectOnly,
    nodeWs.upgradeWebSocket((c) => {
      const project = c.get('project');
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
