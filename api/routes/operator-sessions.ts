// /v1/operator-sessions (docs/api.md#operator-sessions): a project mints and revokes the tokens its
// operators use to see and act on their own tasks (docs/adr/0027-operator-sessions.md).
import { createRoute } from '@hono/zod-openapi';
import { createOperatorSession, MAX_OPERATOR_SESSIONS, operatorSessionJson, operatorSessionUrl, revokeOperatorSession } from '../../domain/projects/sessions.js';
import { auth, jsonBodyOf, errorAnswer, errors, json, keyed, openApiApp, operatorSessionIdParam, type Responses } from '../openapi.js';
import { createOperatorSessionSchema, operatorSessionSchema } from '../schemas/operator-sessions.js';
import type { ApiDeps, AppEnv } from '../types.js';

const tags = ['operator-sessions'];

export function operatorSessionsApp(deps: ApiDeps) {
  const { db } = deps.database;
  const app = openApiApp<AppEnv>();

  const create = createRoute({
    method: 'post',
    path: '/',
    operationId: 'createOperatorSession',
    tags,
    summary: "A token for one operator of the project: its tasks only, with the permissions named",
    description: 'The url carries the token in its fragment (#token=…), which browsers never send to a server or put in a Referer.',
    security: auth.project,
    ...jsonBodyOf(createOperatorSessionSchema),
    responses: { 201: json(operatorSessionSchema, 'The session; the token is shown this once.'), ...errors(400, ...keyed, 413), 409: errorAnswer(409, `The project holds ${MAX_OPERATOR_SESSIONS} sessions that have not expired (limit_reached).`) } as Responses,
  });
  app.openapi(create, async (c) => {
    const body = c.req.valid('json');
    const { session, token } = await createOperatorSession(db, c.get('project'), {
      operatorId: body.operator_id,
      expiresIn: body.expires_in,
      permissions: body.permissions,
      locale: body.locale,
    });
    const url = operatorSessionUrl(deps.config.publicBaseUrl, token);
    return c.json(operatorSessionJson(session, { token, url }), 201);
  });

  const revoke = createRoute({
    method: 'delete',
    path: '/{session_id}',
    operationId: 'revokeOperatorSession',
    tags,
    summary: 'End a session at once (its open WebSockets close with 4401 within seconds); again, nothing changes',
    security: auth.project,
    request: { params: operatorSessionIdParam },
    responses: { 204: { description: 'Revoked (also when it already was).' }, ...errors(...keyed, 404) } as Responses,
  });
  app.openapi(revoke, async (c) => {
    await revokeOperatorSession(db, c.get('project').id, c.req.valid('param').session_id);
    return c.body(null, 204);
  });
  return app;
}
