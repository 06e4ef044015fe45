// The worker's own GET /metrics on WORKER_METRICS_PORT (a worker process has no API): the same
// exposition and the same rule as the API's (admin token, or open with METRICS_PUBLIC=true).
import { createServer, type Server } from 'node:http';
import type { Config } from '../platform/config.js';
import { safeEqual } from '../platform/crypto.js';
import { metricsContentType, metricsText } from '../platform/metrics.js';

/** Listens on `port` (0: a free one; `server.address()` says which). */
export function serveWorkerMetrics(config: Config, adminToken: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method !== 'GET' || url.pathname !== '/metrics') return void res.writeHead(404).end();
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!config.METRICS_PUBLIC && !(token && safeEqual(token, adminToken))) {
      return void res.writeHead(token ? 403 : 401, { 'content-type': 'text/plain' }).end('GET /metrics needs the admin token (or METRICS_PUBLIC=true)\n');
    }
    metricsText().then(
      (text) => res.writeHead(200, { 'content-type': metricsContentType }).end(text),
      (err: Error) => res.writeHead(500).end(err.message),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code === 'EADDRINUSE' ? `port ${port} is already in use (WORKER_METRICS_PORT)` : err.message)));
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
}
