// /v1/projects (CONTRACT §3): the admin registers a project; a project may read its own.
import { Hono } from 'hono';
import { DomainError } from '../../domain/errors.js';
import { createProject, projectJson, requireProject } from '../../domain/projects/projects.js';
import { adminOnly } from '../middleware/auth.js';
import { createProjectSchema } from '../schemas/projects.js';
import type { ApiDeps, AppEnv } from '../types.js';
import { jsonBody, valid } from '../validate.js';

export function projectsApp(deps: ApiDeps) {
  const { db } = deps.database;
  const app = new Hono<AppEnv>();

  app.post('/', adminOnly, jsonBody, valid('json', createProjectSchema), async (c) => {
    const { project, apiKey, webhookSecret } = await createProject(db, c.req.valid('json'));
    return c.json({ ...projectJson(project), api_key: apiKey, webhook_secret: webhookSecret }, 201);
  });

  app.get('/:project_id', async (c) => {
    const principal = c.get('principal');
    const id = c.req.param('project_id');
    if (principal.kind === 'project' && principal.project.id !== id) throw DomainError.notFound('project');
    return c.json(projectJson(await requireProject(db, id)));
  });
  return app;
}
