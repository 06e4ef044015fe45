import { and, count, desc, eq, gte, lt, or, type SQL } from 'drizzle-orm';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { type ProjectRow, type TaskRow, tasks } from '../db/schema.js';
import { ACTIVE_STATUSES, getTask, TERMINAL_STATUSES } from '../db/tasks.js';
import type { TaskEvents } from '../lib/events.js';
import { taskSplitFields } from '../lib/split.js';
import { SubmitError, submitTask } from '../lib/submit.js';
import { areaSchema } from '../lib/template/areas.js';
import { templateField } from '../lib/template/template.js';
import { authenticate, requireProject } from './auth.js';
import { assertDownloadable, primaryFile, sendFile } from './download.js';
import { ApiError, notFound } from './errors.js';
import { type LinkSigner, taskJson } from './serialize.js';
import { taskActions } from './task-actions.js';
import type { ApiDeps, AppEnv } from './types.js';
import { jsonBody, parseWith } from './validate.js';

// Keeps what a file system, a shell or a Content-Disposition header could trip on out of names.
const sanitizeFileName = (s: string) =>
  s.normalize('NFC').replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').replace(/^[.\s]+|[.\s]+$/g, '').slice(0, 120);

const submitSchema = z.object({
  source_url: z.string().max(4096).url('must be an http(s) URL'),
  operator_id: z.string().trim().min(1).max(128),
  type: z.enum(['csv', 'excel', 'xlsx']).default('csv').transform((t) => (t === 'xlsx' ? 'excel' : t)),
  file_name: z.string().max(200).transform(sanitizeFileName).pipe(z.string().min(1, 'has no usable characters')).optional(),
  title: z.string().max(500).optional(),
  summary: z.string().max(20_000).optional(),
  template: templateField.optional(),
  header: areaSchema.optional(),
  footer: areaSchema.optional(),
  ...taskSplitFields,
  callback: z.string().max(4096).url('must be an http(s) URL').optional(),
  page_size: z.number().int().min(100).max(1000).default(500),
  priority: z.number().int().min(1).max(5).default(3),
});

const statuses = [...ACTIVE_STATUSES, ...TERMINAL_STATUSES] as const;
const filterSchema = z.object({
  operator_id: z.string().max(128).optional(),
  status: z.enum(statuses).optional(),
  // Creation time window: created_after inclusive, created_before exclusive (ISO 8601).
  created_after: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
  created_before: z.iso.datetime({ offset: true }).transform((s) => new Date(s)).optional(),
});
const listSchema = filterSchema.extend({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
});

function filters(projectId: string, q: z.infer<typeof filterSchema>): SQL[] {
  const where: SQL[] = [eq(tasks.projectId, projectId)];
  if (q.operator_id) where.push(eq(tasks.operatorId, q.operator_id));
  if (q.status) where.push(eq(tasks.status, q.status));
  if (q.created_after) where.push(gte(tasks.createdAt, q.created_after));
  if (q.created_before) where.push(lt(tasks.createdAt, q.created_before));
  return where;
}

const encodeCursor = (t: TaskRow) => Buffer.from(JSON.stringify([t.createdAt.toISOString(), t.id])).toString('base64url');
function decodeCursor(s: string): [Date, string] {
  try {
    const [at, id] = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as [string, string];
    const d = new Date(at);
    if (Number.isNaN(d.getTime()) || typeof id !== 'string') throw new Error();
    return [d, id];
  } catch {
    throw new ApiError(422, 'validation_failed', 'cursor is not one this API returned', [{ field: 'cursor', message: 'invalid cursor' }]);
  }
}

export function tasksApp(deps: ApiDeps, hub: TaskEvents) {
  const { db } = deps.database;
  const signer: LinkSigner = { baseUrl: deps.config.publicBaseUrl, secret: deps.secrets.linkSecret, ttlSeconds: deps.config.LINK_TTL_SECONDS };
  const app = new Hono<AppEnv>();
  app.use('*', authenticate(deps));

  /** A task of the caller's project, or 404 — never another project's. */
  async function ownTask(projectId: string, taskId: string): Promise<TaskRow> {
    const task = await getTask(db, taskId);
    if (!task || task.projectId !== projectId) throw notFound('task');
    return task;
  }

  /** Validation and submission shared by POST / and POST /sync. */
  async function accept(c: Context<AppEnv>, project: ProjectRow): Promise<{ task: TaskRow; created: boolean }> {
    const body = await jsonBody(c, submitSchema);
    const key = c.req.header('idempotency-key');
    if (key !== undefined && (key.length < 1 || key.length > 255)) {
      throw new ApiError(422, 'validation_failed', 'Idempotency-Key must be 1 to 255 characters', [{ field: 'Idempotency-Key', message: 'length 1 to 255' }]);
    }
    try {
      return await submitTask({ db, temporal: deps.temporal, config: deps.config }, project, body, key);
    } catch (err) {
      if (!(err instanceof SubmitError)) throw err;
      const details = err.field ? [{ field: err.field, message: err.message }] : undefined;
      throw new ApiError(err.status, err.code, err.message, details, err.retryAfter ? { 'Retry-After': String(err.retryAfter) } : undefined);
    }
  }

  app.post('/', async (c) => {
    const { task, created } = await accept(c, requireProject(c.get('principal')));
    if (created) c.header('Location', `/v1/tasks/${task.id}`);
    return c.json(taskJson(task, signer), created ? 202 : 200);
  });

  app.get('/', async (c) => {
    const project = requireProject(c.get('principal'));
    const q = parseWith(listSchema, c.req.query());
    const where = filters(project.id, q);
    if (q.cursor) {
      const [at, id] = decodeCursor(q.cursor);
      where.push(or(lt(tasks.createdAt, at), and(eq(tasks.createdAt, at), lt(tasks.id, id)))!);
    }
    const rows = await db.select().from(tasks).where(and(...where)).orderBy(desc(tasks.createdAt), desc(tasks.id)).limit(q.limit + 1);
    const page = rows.slice(0, q.limit);
    const next = rows.length > q.limit ? encodeCursor(page[page.length - 1]!) : null;
    return c.json({ items: page.map((t) => taskJson(t, signer)), next_cursor: next });
  });

  app.get('/counts', async (c) => {
    const project = requireProject(c.get('principal'));
    const where = filters(project.id, parseWith(filterSchema, c.req.query()));
    const rows = await db.select({ status: tasks.status, n: count() }).from(tasks).where(and(...where)).groupBy(tasks.status);
    const counts = Object.fromEntries(statuses.map((s) => [s, 0])) as Record<string, number>;
    for (const r of rows) counts[r.status] = r.n;
    return c.json({ counts });
  });

  app.get('/:task_id', async (c) => {
    const project = requireProject(c.get('principal'));
    return c.json(taskJson(await ownTask(project.id, c.req.param('task_id')), signer));
  });

  app.get('/:task_id/download', async (c) => {
    const project = requireProject(c.get('principal'));
    const task = await ownTask(project.id, c.req.param('task_id'));
    assertDownloadable(task);
    const file = primaryFile(task);
    if (!file) throw new ApiError(410, 'expired', 'the task has no file to download');
    return sendFile(c, deps.storage, file);
  });

  taskActions(app, { deps, hub, signer, accept, ownTask, project: (c) => requireProject(c.get('principal')) });
  return app;
}
