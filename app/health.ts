// Health for containers and orchestrators. The worker has no HTTP API, so with HEALTH_PORT set it
// answers GET /healthz itself: 200 while its Temporal worker is running (polling, or retrying a lost
// connection) or paused while the database is unreachable (app/worker-supervisor.ts: it resumes by
// itself, a restart would not help), 503 once it has stopped or failed — the state a restart would fix. healthcheck.ts is
// what the image's HEALTHCHECK runs, for the API (PORT) and the worker (HEALTH_PORT) alike.
import { createServer, type Server } from 'node:http';
import type { WorkerSupervisor } from './worker-supervisor.js';

export function serveWorkerHealth(worker: Pick<WorkerSupervisor, 'state'>, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/healthz') return void res.writeHead(404).end();
    const state = worker.state;
    const ok = state === 'RUNNING' || state === 'PAUSED';
    const status = state === 'PAUSED' ? 'paused' : ok ? 'ok' : 'unavailable';
    res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status, checks: { worker: state, ...(state === 'PAUSED' ? { database: 'unavailable' } : {}) } }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(new Error(err.code === 'EADDRINUSE' ? `port ${port} is already in use (HEALTH_PORT)` : err.message)));
    server.listen(port, '0.0.0.0', () => resolve(server));
  });
}
