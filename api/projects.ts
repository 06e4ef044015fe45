import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { z } from 'zod';
import { projects, type ProjectRow } from '../db/schema.js';
import { newId, randomToken, sha256Hex } from '../lib/crypto.js';
import { hostPatternRegex } from '../lib/hosts.js';
import { DEFAULT_SOURCE_LIMITS, sourceLimits } from '../lib/source-limiter.js';
import { newWebhookSecret } from '../lib/webhooks.js';
import { projectSplitFields, splitSettingsJson, splitSettingsOf } from '../lib/split.js';
import { authenticate, requireAdmin } from './auth.js';
import { notFound } from './errors.js';
import type { ApiDeps, AppEnv } from './types.js';
import { jsonBody } from './validate.js';

const hostList = (max: number) =>
  z
    .array(z.string().max(255).regex(hostPatternRegex, 'must be host[:port] or *.domain[:port]'))
    .max(max)
    .transform((hosts) => [...new Set(hosts.map((h) => h.toLowerCase()))]);

const createProject = z.object({
  name: z.string().trim().min(1).max(100),
  source_hosts: hostList(50).refine((h) => h.length > 0, 'list at least one host the sources live on'),
  callback_hosts: hostList(50).default([]),
  retention_hours: z.number().int().min(1).max(24 * 365).default(168),
  max_running_tasks: z.number().int().min(1).max(100).default(4),
  submit_per_minute: z.number().int().min(1).max(10_000).default(60),
  // Politeness towards the project's source, across all its tasks, lanes and workers (lib/source-limiter.ts).
  source_max_concurrency: z.number().int().min(1).max(64).default(DEFAULT_SOURCE_LIMITS.maxConcurrency),
  source_rps: z.number().positive().max(10_000).nullable().default(null),
  // Defaults for the project's tasks' output files, kept in projects.settings (lib/split.ts).
  ...projectSplitFields,
});

export function projectJson(p: ProjectRow) {
  return {
    project_id: p.id,
    name: p.name,
    source_hosts: p.sourceHosts,
    callback_hosts: p.callbackHosts,
    retention_hours: p.retentionHours,
    max_running_tasks: p.maxRunningTasks,
    submit_per_minute: p.submitPerMinute,
    source_max_concurrency: sourceLimits(p.settings).maxConcurrency,
    source_rps: sourceLimits(p.settings).rps,
    ...splitSettingsJson(p.settings),
    created_at: p.createdAt.toISOString(),
  };
}

export function projectsApp(deps: ApiDeps) {
  const { db } = deps.database;
  const app = new Hono<AppEnv>();
  app.use('*', authenticate(deps));

  app.post('/', async (c) => {
    requireAdmin(c.get('principal'));
    const body = await jsonBody(c, createProject);
    const apiKey = `dck_${randomToken(24)}`;
    const webhookSecret = newWebhookSecret();
    const [row] = await db
      .insert(projects)
      .values({
        id: newId('prj'),
        name: body.name,
        apiKeyHash: sha256Hex(apiKey),
        webhookSecret,
        sourceHosts: body.source_hosts,
        callbackHosts: body.callback_hosts,
        retentionHours: body.retention_hours,
        maxRunningTasks: body.max_running_tasks,
        submitPerMinute: body.submit_per_minute,
        settings: { source_max_concurrency: body.source_max_concurrency, source_rps: body.source_rps, ...splitSettingsOf(body) },
      })
      .returning();
    return c.json({ ...projectJson(row!), api_key: apiKey, webhook_secret: webhookSecret }, 201);
  });

  app.get('/:project_id', async (c) => {
    const principal = c.get('principal');
    const id = c.req.param('project_id');
    if (principal.kind === 'project' && principal.project.id !== id) throw notFound('project');
    const [row] = await db.select().from(projects).where(eq(projects.id, id));
    if (!row) throw notFound('project');
    return c.json(projectJson(row));
  });
  return app;
}
