// /v1/projects (CONTRACT §3, §8): the admin registers, lists and changes projects and rotates their
// secrets; a project may read its own.
import { Hono } from 'hono';
import { DomainError } from '../../domain/errors.js';
import { listProjects, rotateApiKey, rotateWebhookSecret } from '../../domain/projects/admin.js';
import { createProject, projectJson, requireProject } from '../../domain/projects/projects.js';
import { changeProject } from '../../domain/tasks/project-settings.js';
import { adminOnly } from '../middleware/auth.js';
import { createProjectSchema, patchProjectSchema, projectListSchema } from '../schemas/projects.js';
import type { ApiDeps, AppEnv } from '../types.js';
import { jsonBody, valid } from '../validate.js';

export function projectsApp(deps: ApiDeps) {
  const { db } = deps.database;
  const grace = deps.config.KEY_ROTATION_GRACE_SECONDS;
  const app = new Hono<AppEnv>();

  app.post('/', adminOnly, jsonBody, valid('json', createProjectSchema), async (c) => {
    const { project, apiKey, webhookSecret } = await createProject(db, c.req.valid('json'));
    return c.json({ ...projectJson(project), api_key: apiKey, webhook_secret: webhookSecret }, 201);
  });

  app.get('/', adminOnly, valid('query', projectListSchema), async (c) => {
    const { items, nextCursor } = await listProjects(db, c.req.valid('query'));
    return c.json({ items: items.map(projectJson), next_cursor: nextCursor });
  });

  app.get('/:project_id', async (c) => {
    const principal = c.get('principal');
    const id = c.req.param('project_id');
    if (principal.kind === 'project' && principal.project.id !== id) throw DomainError.notFound('project');
    return c.json(projectJson(await requireProject(db, id)));
  });

  app.patch('/:project_id', adminOnly, jsonBody, valid('json', patchProjectSchema), async (c) => {
    const row = await changeProject({ db, temporal: deps.temporal, config: deps.config }, c.req.param('project_id'), c.req.valid('json'));
    return c.json(projectJson(row));
  });

  app.post('/:project_id/rotate-key', adminOnly, async (c) => {
    const { project, apiKey, previousKeyExpiresAt } = await rotateApiKey(db, c.req.param('project_id'), grace);
    return c.json({ ...projectJson(project), api_key: apiKey, previous_key_expires_at: previousKeyExpiresAt?.toISOString() ?? null });
  });

  app.post('/:project_id/rotate-webhook-secret', adminOnly, async (c) => {
    const { project, webhookSecret, previousSecretExpiresAt } = await rotateWebhookSecret(db, c.req.param('project_id'), grace);
    return c.json({ ...projectJson(project), webhook_secret: webhookSecret, previous_secret_expires_at: previousSecretExpiresAt?.toISOString() ?? null });
  });
  return app;
}
