// /v1/schedules (CONTRACT §9): recurring exports of the caller's project. Each run is an ordinary
// task carrying schedule_id; the rules live in domain/schedules.
import { Hono } from 'hono';
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
import { scheduleJson } from '../../domain/schedules/view.js';
import { noteSchema, scheduleListSchema, scheduleSchema } from '../schemas/schedules.js';
import type { ApiContext, AppEnv } from '../types.js';
import { jsonBody, valid } from '../validate.js';

type Env = AppEnv & { Variables: { schedule: ScheduleRow } };

export function schedulesApp(ctx: ApiContext) {
  const deps = { db: ctx.database.db, temporal: ctx.temporal, config: ctx.config };
  const app = new Hono<Env>();
  const owned = createMiddleware<Env>(async (c, next) => {
    c.set('schedule', await ownedSchedule(deps.db, c.get('project').id, c.req.param('schedule_id') ?? ''));
    await next();
  });
  /** The schedule as it is now (read again after a change), with Temporal's next due times. */
  const current = async (s: ScheduleRow) => {
    const row = await ownedSchedule(deps.db, s.projectId, s.id);
    return scheduleJson(row, await liveState(deps, row));
  };

  app.post('/', jsonBody, valid('json', scheduleSchema), async (c) => {
    const row = await createSchedule(deps, c.get('project'), c.req.valid('json'));
    c.header('Location', `/v1/schedules/${row.id}`);
    return c.json(scheduleJson(row, await liveState(deps, row)), 201);
  });

  app.get('/', valid('query', scheduleListSchema), async (c) => {
    const { items, nextCursor } = await listSchedules(deps.db, c.get('project').id, c.req.valid('query'));
    return c.json({ items: items.map((s) => scheduleJson(s)), next_cursor: nextCursor });
  });

  app.get('/:schedule_id', owned, async (c) => c.json(await current(c.get('schedule'))));

  app.delete('/:schedule_id', owned, async (c) => {
    await deleteSchedule(deps, c.get('schedule').id);
    return c.body(null, 204);
  });

  app.post('/:schedule_id/pause', owned, jsonBody, valid('json', noteSchema), async (c) => {
    await pauseSchedule(deps, c.get('schedule').id, c.req.valid('json').note ?? 'paused through the API');
    return c.json(await current(c.get('schedule')));
  });

  app.post('/:schedule_id/resume', owned, jsonBody, valid('json', noteSchema), async (c) => {
    await resumeSchedule(deps, c.get('schedule').id, c.req.valid('json').note ?? 'resumed through the API');
    return c.json(await current(c.get('schedule')));
  });

  app.post('/:schedule_id/trigger', owned, async (c) => {
    await triggerSchedule(deps, c.get('schedule').id);
    return c.json(await current(c.get('schedule')), 202);
  });
  return app;
}
