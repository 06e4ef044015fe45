// /v1/schedules (docs/api.md#schedules): recurring exports of the caller's project. Each run is an ordinary
// task carrying schedule_id; the rules live in domain/schedules.
import { createRoute } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import type { ScheduleRow } from '../../db/schema.js';
import {
  createSchedule,
  deleteSchedule,
  listSchedules,
  liveState,
  ownedSchedule,
  pauseSchedule,
  resumeSchedule,
  triggerSchedule,
} from '../../domain/schedules/schedules.js';
import { backfillSchedule, latestBackfills } from '../../domain/schedules/backfill.js';
import { scheduleJson } from '../../domain/schedules/view.js';
import { auth, jsonBodyOf, queryOf, errors, json, keyed, openApiApp, type Responses, scheduleIdParam } from '../openapi.js';
import { backfillObject, scheduleObject, schedulePage } from '../schemas/responses.js';
import { backfillSchema, noteSchema, scheduleListSchema, scheduleSchema } from '../schemas/schedules.js';
import type { ApiContext, AppEnv } from '../types.js';
import { jsonBody } from '../validate.js';

type Env = AppEnv & { Variables: { schedule: ScheduleRow } };

const tags = ['schedules'];
const security = auth.project;
const one = (description: string) => ({ 200: json(scheduleObject, description), ...errors(...keyed, 404) });
// The note is optional, and so is the body that carries it: an empty body is {} (api/validate.ts jsonBody).
const noteBody = { body: { content: { 'application/json': { schema: noteSchema } }, required: false } };

export function schedulesApp(ctx: ApiContext) {
  const deps = { db: ctx.database.db, temporal: ctx.temporal, config: ctx.config };
  const app = openApiApp<Env>();
  const owned = createMiddleware<Env>(async (c, next) => {
    c.set('schedule', await ownedSchedule(deps.db, c.get('project').id, c.req.param('schedule_id') ?? ''));
    await next();
  });
  /** The schedule as it is now (read again after a change), with Temporal's next due times. */
  const current = async (s: ScheduleRow) => {
    const row = await ownedSchedule(deps.db, s.projectId, s.id);
    const backfills = await latestBackfills(deps.db, [row.id]);
    return scheduleJson(row, await liveState(deps, row), backfills.get(row.id));
  };

  const create = createRoute({
    method: 'post',
    path: '/',
    operationId: 'createSchedule',
    tags,
    summary: 'A recurring export: a task body plus cron + timezone, or every',
    security,
    ...jsonBodyOf(scheduleSchema),
    responses: {
      201: json(scheduleObject, 'The schedule.', { Location: { description: '/v1/schedules/<schedule_id>', schema: { type: 'string' } } }),
      ...errors(400, ...keyed, 409, 413),
    } as Responses,
  });
  app.openapi(create, async (c) => {
    const row = await createSchedule(deps, c.get('project'), c.req.valid('json'));
    c.header('Location', `/v1/schedules/${row.id}`);
    return c.json(scheduleJson(row, await liveState(deps, row)), 201);
  });

  const list = createRoute({
    method: 'get',
    path: '/',
    operationId: 'listSchedules',
    tags,
    summary: "The project's schedules",
    security,
    ...queryOf(scheduleListSchema),
    responses: { 200: json(schedulePage, 'One page of schedules.'), ...errors(...keyed) } as Responses,
  });
  app.openapi(list, async (c) => {
    const { items, nextCursor } = await listSchedules(deps.db, c.get('project').id, c.req.valid('query'));
    const backfills = await latestBackfills(deps.db, items.map((s) => s.id));
    return c.json({ items: items.map((s) => scheduleJson(s, undefined, backfills.get(s.id))), next_cursor: nextCursor });
  });

  const at = (method: 'get' | 'post' | 'delete', suffix: string) => ({
    method,
    path: `/{schedule_id}${suffix}`,
    tags,
    security,
    middleware: [owned],
    request: { params: scheduleIdParam },
  });

  app.openapi(
    createRoute({ ...at('get', ''), operationId: 'getSchedule', summary: 'One schedule, with its next due times', responses: one('The schedule.') as Responses }),
    async (c) => c.json(await current(c.get('schedule'))),
  );

  app.openapi(
    createRoute({
      ...at('delete', ''),
      operationId: 'deleteSchedule',
      summary: 'Delete a schedule (its tasks stay)',
      responses: { 204: { description: 'Deleted.' }, ...errors(...keyed, 404) } as Responses,
    }),
    async (c) => {
      await deleteSchedule(deps, c.get('schedule').id);
      return c.body(null, 204);
    },
  );

  const pause = createRoute({
    ...at('post', '/pause'),
    operationId: 'pauseSchedule',
    summary: 'Pause a schedule, with an optional note',
    middleware: [owned, jsonBody],
    request: { params: scheduleIdParam, ...noteBody },
    responses: { ...one('The schedule, paused.'), ...errors(400) } as Responses,
  });
  app.openapi(pause, async (c) => {
    await pauseSchedule(deps, c.get('schedule').id, c.req.valid('json').note ?? 'paused through the API');
    return c.json(await current(c.get('schedule')));
  });

  const resume = createRoute({
    ...at('post', '/resume'),
    operationId: 'resumeSchedule',
    summary: 'Resume a schedule; failures count afresh, paused_reason and last_error are cleared',
    middleware: [owned, jsonBody],
    request: { params: scheduleIdParam, ...noteBody },
    responses: { ...one('The schedule, running.'), ...errors(400) } as Responses,
  });
  app.openapi(resume, async (c) => {
    await resumeSchedule(deps, c.get('schedule').id, c.req.valid('json').note ?? 'resumed through the API');
    return c.json(await current(c.get('schedule')));
  });

  app.openapi(
    createRoute({
      ...at('post', '/trigger'),
      operationId: 'triggerSchedule',
      summary: 'Start a run now (also on a paused schedule)',
      responses: { 202: json(scheduleObject, 'The run was started.'), ...errors(...keyed, 404) } as Responses,
    }),
    async (c) => {
      await triggerSchedule(deps, c.get('schedule').id);
      return c.json(await current(c.get('schedule')), 202);
    },
  );

  const backfill = createRoute({
    ...at('post', '/backfill'),
    operationId: 'backfillSchedule',
    summary: 'Run every interval between start and end, oldest first, as ordinary tasks',
    middleware: [owned, jsonBody],
    request: { params: scheduleIdParam, body: { content: { 'application/json': { schema: backfillSchema } }, required: true } },
    responses: {
      202: json(backfillObject, 'The runs were started, one after another.'),
      200: json(backfillObject, 'No run is due in the range: nothing was started.'),
      ...errors(400, ...keyed, 404, 409),
    } as Responses,
  });
  app.openapi(backfill, async (c) => {
    const { start, end } = c.req.valid('json');
    const done = await backfillSchedule(deps, c.get('schedule'), start, end);
    const iso = (d: Date | null) => d?.toISOString() ?? null;
    const answer = { schedule_id: c.get('schedule').id, start: start.toISOString(), end: end.toISOString(), intervals: done.intervals, first_run: iso(done.first), last_run: iso(done.last) };
    return c.json(answer, done.intervals > 0 ? 202 : 200);
  });
  return app;
}
