// The API's wiring (app/api.ts, app/start.ts): its HTTP server and how it stops.
import type { Server } from 'node:http';
import { createAdaptorServer, type ServerType } from '@hono/node-server';
import { createApp } from '../api/app.js';
import type { ApiDeps } from '../api/types.js';
import type { Config } from '../platform/config.js';

const LISTEN_BACKLOG = 8192;

/** Each server's run starter, drained by stopApi: an accepted submission's run starts before the process ends. */
const starters = new WeakMap<ServerType, { drain(): Promise<void> }>();

export function startApi(deps: ApiDeps, extra?: (app: ReturnType<typeof createApp>['app']) => void): Promise<ServerType> {
  const { app, realtime, starter } = createApp(deps);
  extra?.(app);
  return new Promise((resolve, reject) => {
    const server = createAdaptorServer({ fetch: app.fetch });
    realtime.attach(server as Server);
    // A fleet of clients reconnecting at once must queue, not be reset: the kernel caps the backlog
    // at net.core.somaxconn (4096 here), well above Node's default of 511.
    starters.set(server, starter);
    server.listen({ port: deps.config.PORT, host: '0.0.0.0', backlog: LISTEN_BACKLOG }, () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === 'EADDRINUSE' ? `port ${deps.config.PORT} is already in use (PORT)` : `the API could not listen: ${err.message}`)),
    );
  });
}

/** Stops the API after SHUTDOWN_DELAY_MS (readiness already 503); WebSockets close with 1001. */
export async function stopApi(server: ServerType, config: Config): Promise<void> {
  await new Promise((r) => setTimeout(r, config.SHUTDOWN_DELAY_MS));
  await new Promise((r) => server.close(r));
  await drainStarts(server);
}

/** Waits for the runs of the submissions this server accepted to have started (or been handed back). */
export async function drainStarts(server: ServerType): Promise<void> {
  await starters.get(server)?.drain();
}

