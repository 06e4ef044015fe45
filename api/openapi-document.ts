// The OpenAPI 3.1 document of the whole API (docs/api.md): the routes describe themselves where they
// are defined (createRoute in api/routes/); this adds what no route handler carries: the security
// schemes, the WebSocket (served by api/ws, described here with its messages) and the signed
// callback as a `webhooks` entry.
import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { auth, errors, type Responses } from './openapi.js';
import { operatorTaskEvent, operatorTaskPage, operatorTaskSchema } from './schemas/operator-view.js';
import { callbackEvent, schedulePausedEvent, taskEvent } from './schemas/responses.js';
import { statesBadText } from './openapi-text.js';

const WS_DESCRIPTION = `A WebSocket. Authenticate the upgrade request with \`Authorization: Bearer <api_key>\`;
browsers, which cannot set that header, may pass \`?access_token=<api_key>\` instead. A browser page of a
foreign origin is refused with 403 (WS_ALLOWED_ORIGINS). A request without the whole handshake (Upgrade,
Connection, a Sec-WebSocket-Key, Sec-WebSocket-Version: 13, distinct subprotocols) is refused with 426.

Client messages (JSON text frames):
- \`{"subscribe": "<task_id>"}\` or \`{"subscribe": "*"}\` (every task of the project; with an operator token, every task of its operator) → \`{"subscribed": "<target>"}\`,
  then at once the current state of the task (for \`*\`: of each active task)
- \`{"unsubscribe": "<task_id>" | "*"}\` → \`{"unsubscribed": "<target>"}\`

Server messages:
- \`{"event": "task.progress" | "task.paused" | "task.resumed" | "task.succeeded" | "task.failed" | "task.cancelled" | "task.expired", "task": {Task}}\`
  (progress at most a few times a second; see the TaskEvent schema; with an operator token the task is an
  OperatorTask, see the OperatorTaskEvent schema)
- \`{"error": {"code": "bad_message" | "not_found" | "too_many_subscriptions", "message": "…", "subscribe"?: "<target>"}}\`

The server pings; a connection without subscriptions is closed after WS_IDLE_MS; five bad messages or a
flood close it with 1008; a reader too slow for a final event is closed with 1013 (reconnect and read
the task); a shutting-down process closes with 1001.`;

/** The x-websocket extension: the same messages, machine-readable. */
const wsMessages = {
  client: [
    { type: 'object', required: ['subscribe'], properties: { subscribe: { type: 'string', description: 'a task_id, or * for the whole project' } }, additionalProperties: false },
    { type: 'object', required: ['unsubscribe'], properties: { unsubscribe: { type: 'string' } }, additionalProperties: false },
  ],
  server: [
    { $ref: '#/components/schemas/TaskEvent' },
    { $ref: '#/components/schemas/OperatorTaskEvent' },
    { type: 'object', required: ['subscribed'], properties: { subscribed: { type: 'string' } } },
    { type: 'object', required: ['unsubscribed'], properties: { unsubscribed: { type: 'string' } } },
    {
      type: 'object',
      required: ['error'],
      properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, subscribe: { type: 'string' } } } },
    },
  ],
};

const CALLBACK_DESCRIPTION = `Sent to a task's \`callback\` URL when it succeeds or fails (not on cancel or pause). Signed per
Standard Webhooks (https://www.standardwebhooks.com) with the project's webhook_secret: verify
\`webhook-signature\` over \`<webhook-id>.<webhook-timestamp>.<body>\` (the client's verifyCallback does).
Any 2xx ends delivery; anything else is retried with backoff. During a secret rotation the signature header
carries one signature per secret. Deliveries are listed by GET /v1/tasks/{task_id}/deliveries.`;

/** Registers what the routes do not describe themselves; call once, on the root app, after mounting. */
export function describeExtras<E extends Env>(app: OpenAPIHono<E>): void {
  const registry = app.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'projectKey', {
    type: 'http',
    scheme: 'bearer',
    description: "A project's api_key (dck_…): acts on that project's tasks and schedules only.",
  });
  registry.registerComponent('securitySchemes', 'operatorToken', {
    type: 'http',
    scheme: 'bearer',
    description: "An operator session's token (dco_…, POST /v1/operator-sessions): one operator's tasks of one project (an e-mail's link: one task) — list, count, read, download, and the actions its permissions name. It reads each task as an OperatorTask.",
  });
  registry.registerComponent('securitySchemes', 'adminToken', { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN: projects and cross-project views.' });
  registry.register('TaskEvent', taskEvent);
  // What an operator token reads instead of Task, wherever it reads a task (api/schemas/operator-view.ts).
  registry.register('OperatorTask', operatorTaskSchema);
  registry.register('OperatorTaskPage', operatorTaskPage);
  registry.register('OperatorTaskEvent', operatorTaskEvent);

  registry.registerPath({
    method: 'get',
    path: '/v1/ws',
    operationId: 'watchTasks',
    tags: ['tasks'],
    summary: 'Task events over a WebSocket',
    description: WS_DESCRIPTION,
    security: auth.projectOrOperator,
    request: {
      query: z.object({ access_token: z.string().optional().openapi({ description: 'The api_key, for browsers only (they cannot set Authorization on a WebSocket).' }) }),
      headers: z.object({ upgrade: z.literal('websocket'), connection: z.literal('Upgrade') }),
    },
    responses: {
      101: { description: 'Switching Protocols: the WebSocket is open.' },
      ...errors(401, 403, 426, 503),
    } as Responses,
    'x-websocket': wsMessages,
  });

  registry.registerWebhook({
    method: 'post',
    path: 'task.callback',
    operationId: 'taskCallback',
    summary: 'A task finished (succeeded or failed)',
    description: CALLBACK_DESCRIPTION,
    request: {
      headers: z.object({
        'webhook-id': z.string().openapi({ description: 'Unique per event; the same on every retry of it (de-duplicate on it).' }),
        'webhook-timestamp': z.string().openapi({ description: 'Unix seconds of this attempt.' }),
        'webhook-signature': z.string().openapi({ description: 'Space-separated `v1,<base64 HMAC-SHA256>` signatures.' }),
      }),
      body: { content: { 'application/json': { schema: callbackEvent } }, required: true },
    },
    responses: { '2XX': { description: 'Delivered; no retry.' }, default: { description: 'Retried with backoff.' } },
  });

  registry.registerWebhook({
    method: 'post',
    path: 'schedule.paused',
    operationId: 'schedulePaused',
    summary: 'A schedule paused itself after pause_after_failures failed runs in a row',
    description:
      "POSTed once per such pause to the project's alert_callback (a URL on callback_hosts), signed and retried exactly as a task's callback (the same headers; the webhook-id is the same on every retry). Resume the schedule with POST /v1/schedules/{schedule_id}/resume.",
    request: {
      headers: z.object({
        'webhook-id': z.string().openapi({ description: 'Unique per pause; the same on every retry of it (de-duplicate on it).' }),
        'webhook-timestamp': z.string().openapi({ description: 'Unix seconds of this attempt.' }),
        'webhook-signature': z.string().openapi({ description: 'Space-separated `v1,<base64 HMAC-SHA256>` signatures.' }),
      }),
      body: { content: { 'application/json': { schema: schedulePausedEvent } }, required: true },
    },
    responses: { '2XX': { description: 'Delivered; no retry.' }, default: { description: 'Retried with backoff.' } },
  });
}

/** The document as served at /openapi.json. */
export function openApiDocument<E extends Env>(app: OpenAPIHono<E>, serverUrl: string) {
  return statesBadText(documentOf(app, serverUrl));
}

function documentOf<E extends Env>(app: OpenAPIHono<E>, serverUrl: string) {
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Download Center',
      version: '1.1',
      description:
        'Data exports for business systems: register a project, submit a task pointing at a paginated JSON source, follow it and download the file. Errors always have the shape of the Error schema. The typed client lives in client/ of the repository.',
    },
    servers: [{ url: serverUrl }],
    tags: [
      { name: 'tasks', description: 'Exports of the caller\'s project (project key).' },
      { name: 'schedules', description: 'Recurring exports (project key).' },
      { name: 'downloads', description: "The record of every download of the project's files (project key; an operator session: its own)." },
      { name: 'destinations', description: "Delivery into the customer's own bucket (project key)." },
      { name: 'usage', description: "The project's use per day and its bytes stored; quotas are project settings (project key)." },
      { name: 'projects', description: 'Projects and their secrets (admin token; a project may read its own).' },
      { name: 'admin', description: 'Views across projects (admin token).' },
      { name: 'operations', description: 'Health, readiness, metrics.' },
    ],
  });
}
