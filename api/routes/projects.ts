// /v1/projects (docs/api.md#projects): the admin registers, lists and changes projects and rotates their
// secrets; a project may read its own.
import { createRoute } from '@hono/zod-openapi';
import { DomainError } from '../../domain/errors.js';
import { listProjects, rotateApiKey, rotateMaskKey, rotateWebhookSecret } from '../../domain/projects/admin.js';
import { createProject, projectJson, requireProject } from '../../domain/projects/projects.js';
import { changeProject } from '../../domain/projects/settings.js';
import { adminOnly } from '../middleware/auth.js';
import { auth, jsonBodyOf, queryOf, errors, json, keyed, openApiApp, projectIdParam, type Responses } from '../openapi.js';
import { keyRotated, maskKeyRotated, projectCreated, projectPage, projectSchema, secretRotated } from '../schemas/responses.js';
import { createProjectSchema, patchProjectSchema, projectListSchema } from '../schemas/projects.js';
import type { ApiContext, AppEnv } from '../types.js';
import { jsonBody } from '../validate.js';

const tags = ['projects'];

export function projectsApp(deps: ApiContext) {
  const { db } = deps.database;
  const grace = deps.config.KEY_ROTATION_GRACE_SECONDS;
  const sealingKeys = deps.secrets.destinationKeys;
  const app = openApiApp<AppEnv>();

  const create = createRoute({
    method: 'post',
    path: '/',
    operationId: 'createProject',
    tags,
    summary: 'Register a project (admin)',
    security: auth.admin,
    ...jsonBodyOf(createProjectSchema, adminOnly),
    responses: { 201: json(projectCreated, 'The project, with api_key and webhook_secret shown once.'), ...errors(400, ...keyed, 413) } as Responses,
  });
  app.openapi(create, async (c) => {
    const { project, apiKey, webhookSecret } = await createProject(db, c.req.valid('json'), sealingKeys);
    return c.json({ ...projectJson(project), api_key: apiKey, webhook_secret: webhookSecret }, 201);
  });

  const list = createRoute({
    method: 'get',
    path: '/',
    operationId: 'listProjects',
    tags,
    summary: 'List projects (admin), cursor paging',
    security: auth.admin,
    ...queryOf(projectListSchema, adminOnly),
    responses: { 200: json(projectPage, 'One page of projects.'), ...errors(...keyed) } as Responses,
  });
  app.openapi(list, async (c) => {
    const { items, nextCursor } = await listProjects(db, c.req.valid('query'));
    return c.json({ items: items.map(projectJson), next_cursor: nextCursor });
  });

  const get = createRoute({
    method: 'get',
    path: '/{project_id}',
    operationId: 'getProject',
    tags,
    summary: 'One project (admin, or that project\'s own key)',
    security: auth.projectOrAdmin,
    request: { params: projectIdParam },
    responses: { 200: json(projectSchema, 'The project.'), ...errors(...keyed, 404) } as Responses,
  });
  app.openapi(get, async (c) => {
    const principal = c.get('principal');
    const id = c.req.valid('param').project_id;
    if (principal.kind === 'project' && principal.project.id !== id) throw DomainError.notFound('project');
    return c.json(projectJson(await requireProject(db, id)));
  });

  const patch = createRoute({
    method: 'patch',
    path: '/{project_id}',
    operationId: 'changeProject',
    tags,
    summary: 'Change settings (admin); a field left out keeps its value',
    security: auth.admin,
    middleware: [adminOnly, jsonBody],
    request: { params: projectIdParam, body: { content: { 'application/json': { schema: patchProjectSchema } }, required: true } },
    responses: { 200: json(projectSchema, 'The project as changed.'), ...errors(400, ...keyed, 404, 413) } as Responses,
  });
  app.openapi(patch, async (c) => {
    const row = await changeProject(db, c.req.param('project_id'), c.req.valid('json'), (id) => deps.admission.dispatch(id));
    return c.json(projectJson(row));
  });

  const rotateKey = createRoute({
    method: 'post',
    path: '/{project_id}/rotate-key',
    operationId: 'rotateApiKey',
    tags,
    summary: 'A new API key (admin); the old one works for KEY_ROTATION_GRACE_SECONDS',
    security: auth.admin,
    middleware: [adminOnly],
    request: { params: projectIdParam },
    responses: { 200: json(keyRotated, 'The new key, shown once.'), ...errors(...keyed, 404) } as Responses,
  });
  app.openapi(rotateKey, async (c) => {
    const { project, apiKey, previousKeyExpiresAt } = await rotateApiKey(db, c.req.param('project_id'), grace);
    return c.json({ ...projectJson(project), api_key: apiKey, previous_key_expires_at: previousKeyExpiresAt?.toISOString() ?? null });
  });

  const rotateSecret = createRoute({
    method: 'post',
    path: '/{project_id}/rotate-webhook-secret',
    operationId: 'rotateWebhookSecret',
    tags,
    summary: 'A new webhook secret (admin); callbacks are signed with both during the grace period',
    security: auth.admin,
    middleware: [adminOnly],
    request: { params: projectIdParam },
    responses: { 200: json(secretRotated, 'The new secret, shown once.'), ...errors(...keyed, 404) } as Responses,
  });
  app.openapi(rotateSecret, async (c) => {
    const { project, webhookSecret, previousSecretExpiresAt } = await rotateWebhookSecret(db, c.req.param('project_id'), grace);
    return c.json({ ...projectJson(project), webhook_secret: webhookSecret, previous_secret_expires_at: previousSecretExpiresAt?.toISOString() ?? null });
  });

  const rotateMask = createRoute({
    method: 'post',
    path: '/{project_id}/rotate-mask-key',
    operationId: 'rotateMaskKey',
    tags,
    summary: 'A new key for the project\'s hash masks (admin); hashes written from now on change',
    description: 'The key is never shown. Exports probed after this call hash with the new key; an export running across it starts over once under the new key, so no file holds hashes of both.',
    security: auth.admin,
    middleware: [adminOnly],
    request: { params: projectIdParam },
    responses: { 200: json(maskKeyRotated, 'The project, and when its key changed.'), ...errors(...keyed, 404) } as Responses,
  });
  app.openapi(rotateMask, async (c) => {
    const project = await rotateMaskKey(db, c.req.param('project_id'), sealingKeys);
    return c.json({ ...projectJson(project), mask_key_rotated_at: new Date().toISOString() });
  });
  return app;
}
