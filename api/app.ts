// The HTTP API: one sub-app per resource, mounted here with the middleware they share.
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import { DomainError } from '../domain/errors.js';
import { PoliteSource } from '../domain/source/polite.js';
import { sourceClientOptions } from '../domain/source/client.js';
import { TaskEvents } from '../domain/tasks/events.js';
import { Admission, AfterAnswer } from '../domain/tasks/admission/index.js';
import { linkSigner } from '../domain/tasks/view.js';
import { onError } from './errors.js';
import { allowedMethods } from './methods.js';
import { openApiApp } from './openapi.js';
import { describeExtras, openApiDocument } from './openapi-document.js';
import { pathText } from './validate.js';
import { adminOnly, authenticate, projectOnly } from './middleware/auth.js';
import { projectOrOperator } from './middleware/operator.js';
import { requestLog } from './middleware/request-log.js';
import { adminApp } from './routes/admin.js';
import { adminMailsApp } from './routes/admin-mails.js';
import { mailsPageApp } from './routes/mails-page.js';
import { consoleApp, consoleDir } from './routes/console.js';
import { OPERATOR_FORM_BYTES, operatorPageApp } from './routes/operator-page.js';
import { cachedOperatorSession } from '../domain/projects/session-cache.js';
import { docsApp } from './routes/docs.js';
import { downloadsApp, downloadsOfTaskApp } from './routes/downloads.js';
import { filesApp } from './routes/files.js';
import { operatorSessionsApp } from './routes/operator-sessions.js';
import { previewApp } from './routes/preview.js';
import { healthApp, readyApp } from './routes/health.js';
import { metricsApp } from './routes/metrics.js';
import { projectsApp } from './routes/projects.js';
import { destinationsApp } from './routes/destinations.js';
import { schedulesApp } from './routes/schedules.js';
import { syncApp } from './routes/sync.js';
import { taskActionsApp } from './routes/task-actions.js';
import { tasksApp } from './routes/tasks.js';
import { usageApp } from './routes/usage.js';
import type { ApiContext, ApiDeps, AppEnv } from './types.js';
import { createRealtime } from './ws/realtime.js';

export type { ApiDeps } from './types.js';

export function createApp(deps: ApiDeps) {
  const { config } = deps;
  const admission = new Admission({ db: deps.database.db, temporal: deps.temporal, config });
  const ctx: ApiContext = {
    ...deps,
    hub: new TaskEvents(deps.database, config.WS_PROGRESS_INTERVAL_MS),
    admission,
    starter: new AfterAnswer(admission, deps.eagerTemporal),
    signer: linkSigner(config, deps.secrets.linkSecret),
    source: new PoliteSource({
      client: sourceClientOptions(config),
      databaseUrl: config.DATABASE_URL,
    }),
  };
  const app = openApiApp<AppEnv>();
  const realtime = createRealtime(ctx, app);
  app.use('*', requestId());
  app.use('*', requestLog);
  const limit = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw new DomainError('payload_too_large', `the request body is larger than ${maxSize} bytes`);
      },
    });
  app.use('/v1/*', limit(config.MAX_BODY_BYTES));
  // The operator page takes one form field, a token of ~50 characters, from anyone.
  app.use('/operator', limit(OPERATOR_FORM_BYTES));
  // Bad text in a path (a NUL, broken UTF-8) is a 422 before any lookup.
  app.use('/v1/*', pathText);
  app.use('/v1/projects/*', authenticate(deps));
  app.use('/v1/tasks/*', authenticate(deps), projectOrOperator);
  app.use('/v1/downloads/*', authenticate(deps), projectOrOperator);
  app.use('/v1/schedules/*', authenticate(deps), projectOnly);
  app.use('/v1/destinations/*', authenticate(deps), projectOnly);
  app.use('/v1/usage/*', authenticate(deps), projectOnly);
  app.use('/v1/operator-sessions/*', authenticate(deps), projectOnly);
  app.use('/v1/admin/*', authenticate(deps), adminOnly);
  app.route('/healthz', healthApp(deps));
  app.route('/readyz', readyApp());
  app.route('/metrics', metricsApp(deps));
  app.route('/v1/admin', adminApp(ctx));
  app.route('/v1/admin', adminMailsApp(deps.mailbox));
  app.route('/v1/projects', projectsApp(ctx));
  app.route('/v1/tasks', tasksApp(ctx));
  app.route('/v1/tasks', syncApp(ctx));
  app.route('/v1/tasks', previewApp(ctx));
  app.route('/v1/tasks', taskActionsApp(ctx));
  app.route('/v1/tasks', downloadsOfTaskApp(ctx));
  app.route('/v1/downloads', downloadsApp(ctx));
  app.route('/v1/schedules', schedulesApp(ctx));
  app.route('/v1/destinations', destinationsApp(ctx));
  app.route('/v1/usage', usageApp(ctx));
  app.route('/v1/operator-sessions', operatorSessionsApp(deps));
  app.route('/v1/ws', realtime.routes);
  app.route('/v1/files', filesApp(deps));
  app.route('/', consoleApp());
  app.route('/mails', mailsPageApp());
  app.route('/operator', operatorPageApp(consoleDir, (token) => cachedOperatorSession(deps.database, token)));
  describeExtras(app);
  app.route('/', docsApp(() => openApiDocument(app, config.publicBaseUrl)));
  app.notFound((c) => {
    const allow = allowedMethods(app.routes, c.req.path);
    if (allow.length === 0) return onError(new DomainError('not_found', `no such endpoint: ${c.req.method} ${c.req.path}`), c);
    const res = onError(new DomainError('method_not_allowed', `${c.req.path} does not take ${c.req.method}; it takes ${allow.join(', ')}`), c);
    res.headers.set('Allow', allow.join(', '));
    return res;
  });
  app.onError(onError);
  return { app, realtime, starter: ctx.starter };
}
