// /v1/admin in process (route-app.ts): tasks across projects, for the admin token only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { ADMIN, type Project, type RouteApp, startWithTwoProjects, taskBody } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

let rt: RouteApp;
let a: Project;
let b: Project;
beforeAll(async () => {
  ({ rt, a, b } = await startWithTwoProjects());
  await rt.submit(a.api_key, taskBody({ operator_id: 'ops' }));
  await rt.submit(b.api_key, taskBody({ operator_id: 'ops' }));
  await rt.submit(b.api_key, taskBody({ operator_id: 'ops', file_name: 'second' }));
});
afterAll(() => rt?.close());

const admin = { token: ADMIN };

describe('GET /v1/admin/tasks', () => {
  it("lists every project's tasks, filtered by project and paged", async () => {
    const all = await rt.call('GET', '/v1/admin/tasks?operator_id=ops', admin);
    expect(all.status).toBe(200);
    expect(new Set(all.json.items.map((t: { project_id: string }) => t.project_id))).toEqual(new Set([a.project_id, b.project_id]));
    const onlyB = await rt.call('GET', `/v1/admin/tasks?project_id=${b.project_id}&limit=1`, admin);
    expect(onlyB.json.items).toHaveLength(1);
    expect(onlyB.json.items[0].project_id).toBe(b.project_id);
    const next = await rt.call('GET', `/v1/admin/tasks?project_id=${b.project_id}&limit=1&cursor=${encodeURIComponent(onlyB.json.next_cursor)}`, admin);
    expect(next.json.items).toHaveLength(1);
    expect(next.json.next_cursor).toBeNull();
  });

  it('refuses a bad filter (422) and any key but the admin token', async () => {
    expectError(await rt.call('GET', '/v1/admin/tasks?stage=lunch', admin), 422, 'validation_failed');
    expectError(await rt.call('GET', '/v1/admin/tasks?limit=1000', admin), 422, 'validation_failed');
    await expectKeyRefusals(rt, 'GET', '/v1/admin/tasks', 'admin');
  });
});

describe('GET /v1/admin/tasks/counts', () => {
  it('counts tasks by status across projects, or of one', async () => {
    const all = await rt.call('GET', '/v1/admin/tasks/counts?operator_id=ops', admin);
    expect(all.status).toBe(200);
    expect(all.json.counts.queued).toBe(3);
    expect((await rt.call('GET', `/v1/admin/tasks/counts?operator_id=ops&project_id=${a.project_id}`, admin)).json.counts.queued).toBe(1);
  });

  it('refuses a bad filter (422) and any key but the admin token', async () => {
    expectError(await rt.call('GET', '/v1/admin/tasks/counts?status=sleeping', admin), 422, 'validation_failed');
    await expectKeyRefusals(rt, 'GET', '/v1/admin/tasks/counts', 'admin');
  });
});

itCalledItsRoutes('admin', () => rt);
