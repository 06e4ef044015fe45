import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import { ApiError, onError } from './errors.js';
import { filesApp } from './files.js';
import { healthApp } from './health.js';
import { projectsApp } from './projects.js';
import { createRealtime } from './realtime.js';
import { tasksApp } from './tasks.js';
import type { ApiDeps, AppEnv } from './types.js';

export type { ApiDeps } from './types.js';

export function createApp(deps: ApiDeps) {
  const app = new Hono<AppEnv>();
  const realtime = createRealtime(deps, app);
  app.use('*', requestId());
  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: deps.config.MAX_BODY_BYTES,
      onError: () => {
        throw new ApiError(413, 'payload_too_large', `the request body is larger than ${deps.config.MAX_BODY_BYTES} bytes`);
      },
    }),
  );
  app.route('/healthz', healthApp(deps));
  app.route('/v1/projects', projectsApp(deps));
  app.route('/v1/tasks', tasksApp(deps, realtime.hub));
  app.route('/v1/ws', realtime.routes);
  app.route('/v1/files', filesApp(deps));
  app.notFound((c) => onError(new ApiError(404, 'not_found', `no such endpoint: ${c.req.method} ${c.req.path}`), c));
  app.onError(onError);
  return { app, realtime };
}
