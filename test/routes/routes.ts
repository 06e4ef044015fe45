// Which route test file tests each documented route (coverage.test.ts holds this table to
// /openapi.json both ways), and the check each file ends with: that each route the table gives it
// answered at least one of its calls with success (route-app.ts notes each call's route and
// status). A new route without a test fails the one, a route with no happy path the other.
import { expect, it } from 'vitest';
import type { RouteApp } from '../support/route-app.js';

export type RouteFile = 'admin' | 'admin-mails' | 'destinations' | 'downloads' | 'files' | 'operations' | 'operator-sessions' | 'preview' | 'projects' | 'schedules' | 'sync' | 'task-actions' | 'tasks' | 'usage' | 'ws';

export const ROUTE_TESTS: Record<string, RouteFile> = {
  'GET /healthz': 'operations',
  'GET /readyz': 'operations',
  'GET /metrics': 'operations',
  'GET /v1/admin/tasks': 'admin',
  'GET /v1/admin/tasks/counts': 'admin',
  'GET /v1/admin/usage': 'usage',
  'GET /v1/usage': 'usage',
  'GET /v1/admin/mails': 'admin-mails',
  'GET /v1/admin/mails/{mail_id}': 'admin-mails',
  'POST /v1/projects': 'projects',
  'GET /v1/projects': 'projects',
  'GET /v1/projects/{project_id}': 'projects',
  'PATCH /v1/projects/{project_id}': 'projects',
  'POST /v1/projects/{project_id}/rotate-key': 'projects',
  'POST /v1/projects/{project_id}/rotate-webhook-secret': 'projects',
  'POST /v1/projects/{project_id}/rotate-mask-key': 'projects',
  'POST /v1/tasks': 'tasks',
  'GET /v1/tasks': 'tasks',
  'GET /v1/tasks/counts': 'tasks',
  'GET /v1/tasks/{task_id}': 'tasks',
  'GET /v1/tasks/{task_id}/download': 'files',
  'POST /v1/tasks/sync': 'sync',
  'POST /v1/tasks/preview': 'preview',
  'POST /v1/tasks/{task_id}/cancel': 'task-actions',
  'POST /v1/tasks/{task_id}/retry': 'task-actions',
  'POST /v1/tasks/{task_id}/pause': 'task-actions',
  'POST /v1/tasks/{task_id}/resume': 'task-actions',
  'GET /v1/tasks/{task_id}/deliveries': 'task-actions',
  'GET /v1/tasks/{task_id}/downloads': 'downloads',
  'GET /v1/downloads': 'downloads',
  'GET /v1/downloads/count': 'downloads',
  'POST /v1/schedules': 'schedules',
  'GET /v1/schedules': 'schedules',
  'GET /v1/schedules/{schedule_id}': 'schedules',
  'DELETE /v1/schedules/{schedule_id}': 'schedules',
  'POST /v1/schedules/{schedule_id}/pause': 'schedules',
  'POST /v1/schedules/{schedule_id}/resume': 'schedules',
  'POST /v1/schedules/{schedule_id}/trigger': 'schedules',
  'POST /v1/destinations': 'destinations',
  'GET /v1/destinations': 'destinations',
  'GET /v1/destinations/{destination_id}': 'destinations',
  'DELETE /v1/destinations/{destination_id}': 'destinations',
  'POST /v1/destinations/{destination_id}/test': 'destinations',
  'POST /v1/schedules/{schedule_id}/backfill': 'schedules',
  'GET /v1/files/{task_id}/{name}': 'files',
  'GET /v1/ws': 'ws',
  'POST /v1/operator-sessions': 'operator-sessions',
  'DELETE /v1/operator-sessions/{session_id}': 'operator-sessions',
};

/** Routes whose success cannot happen in process: app.request() cannot upgrade to a WebSocket. */
const REFUSALS_ONLY = new Set(['GET /v1/ws']);

/** The last test of a route file: every route the table gives it succeeded at least once (2xx). */
export function itCalledItsRoutes(file: RouteFile, rt: () => RouteApp): void {
  it(`called every route the table gives ${file}.test.ts, with success`, () => {
    const mine = Object.entries(ROUTE_TESTS).filter(([, f]) => f === file).map(([route]) => route);
    expect(mine.length).toBeGreaterThan(0);
    const succeeded = (r: string) => [...(rt().hits.get(r) ?? [])].some((s) => s >= 200 && s < 300);
    expect(mine.filter((r) => !(REFUSALS_ONLY.has(r) ? rt().hits.has(r) : succeeded(r)))).toEqual([]);
  });
}
