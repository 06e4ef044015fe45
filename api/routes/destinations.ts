// /v1/destinations (docs/destinations.md): the project's buckets and SFTP directories its tasks
// deliver into. The secret (key, password, private key) goes in once and never comes back out;
// another project's destination is not found.
import { createRoute } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import type { DestinationRow } from '../../db/schema.js';
import { probeDestination } from '../../domain/destinations/probe.js';
import { createDestination, deleteDestination, destinationJson, listDestinations, ownedDestination } from '../../domain/destinations/store.js';
import { auth, jsonBodyOf, queryOf, destinationIdParam, errors, json, keyed, openApiApp, type Responses } from '../openapi.js';
import { createDestinationSchema, destinationListSchema, destinationObject, destinationPage, probeResult } from '../schemas/destinations.js';
import type { ApiContext, AppEnv } from '../types.js';

type Env = AppEnv & { Variables: { destination: DestinationRow } };

const tags = ['destinations'];
const security = auth.project;

export function destinationsApp(ctx: ApiContext) {
  const db = ctx.database.db;
  const keys = ctx.secrets.destinationKeys;
  const app = openApiApp<Env>();
  const owned = createMiddleware<Env>(async (c, next) => {
    c.set('destination', await ownedDestination(db, c.get('project').id, c.req.param('destination_id') ?? ''));
    await next();
  });

  const create = createRoute({
    method: 'post',
    path: '/',
    operationId: 'createDestination',
    tags,
    summary: "A bucket or SFTP directory to deliver into; its endpoint's (or SFTP host's) host must be on the project's destination_hosts",
    security,
    ...jsonBodyOf(createDestinationSchema),
    responses: {
      201: json(destinationObject, 'The destination (its secret is never shown).', { Location: { description: '/v1/destinations/<destination_id>', schema: { type: 'string' } } }),
      ...errors(400, ...keyed, 409, 413),
    } as Responses,
  });
  app.openapi(create, async (c) => {
    const row = await createDestination(db, c.get('project'), c.req.valid('json'), keys);
    c.header('Location', `/v1/destinations/${row.id}`);
    return c.json(destinationJson(row), 201);
  });

  const list = createRoute({
    method: 'get',
    path: '/',
    operationId: 'listDestinations',
    tags,
    summary: "The project's destinations, newest first",
    security,
    ...queryOf(destinationListSchema),
    responses: { 200: json(destinationPage, 'One page of destinations.'), ...errors(...keyed) } as Responses,
  });
  app.openapi(list, async (c) => {
    const { items, nextCursor } = await listDestinations(db, c.get('project').id, c.req.valid('query'));
    return c.json({ items: items.map(destinationJson), next_cursor: nextCursor });
  });

  const at = (method: 'get' | 'post' | 'delete', suffix: string) => ({ method, path: `/{destination_id}${suffix}`, tags, security, middleware: [owned], request: { params: destinationIdParam } });

  app.openapi(
    createRoute({ ...at('get', ''), operationId: 'getDestination', summary: 'One destination', responses: { 200: json(destinationObject, 'The destination.'), ...errors(...keyed, 404) } as Responses }),
    (c) => c.json(destinationJson(c.get('destination'))),
  );

  app.openapi(
    createRoute({
      ...at('delete', ''),
      operationId: 'deleteDestination',
      summary: 'Delete a destination (a task still to deliver there fails with destination_not_found)',
      responses: { 204: { description: 'Deleted.' }, ...errors(...keyed, 404) } as Responses,
    }),
    async (c) => {
      await deleteDestination(db, c.get('project').id, c.get('destination').id);
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
      ...at('post', '/test'),
      operationId: 'testDestination',
      summary: 'Write and remove a small object (S3: and start and abort a multipart upload; SFTP: a probe file written, renamed and removed); answers which step failed and why',
      responses: {
        200: json(probeResult, 'ok, or the failed step with a code: host_not_allowed, blocked, dns, connect, timeout, tls, host_key, auth, bucket, directory, permission, unknown. SFTP adds the host key seen and each step.'),
        ...errors(...keyed, 404),
      } as Responses,
    }),
    async (c) => c.json(await probeDestination(c.get('destination'), c.get('project'), keys, ctx.config.DELIVERY_TIMEOUT_MS)),
  );

  return app;
}
