// Downloads in process (route-app.ts): a task's file through its key (GET /v1/tasks/{id}/download)
// and through a signed link (GET /v1/files/{id}/{name}, no key: the signature is the credential).
// The file is put in place as a finished run would (route-app.ts succeed()).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markBatchExpired } from '../../domain/tasks/status.js';
import { signLink } from '../../platform/links.js';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { LINK_SECRET, type Project, type RouteApp, startWithTwoProjects, taskBody } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

const CSV = 'id,name\n1,客户 1\n2,客户 2\n';

let rt: RouteApp;
let a: Project;
let b: Project;
let done: { task_id: string; files: Array<{ name: string; url: string; sha256: string }> };
beforeAll(async () => {
  ({ rt, a, b } = await startWithTwoProjects());
  const task = await rt.submit(a.api_key, taskBody({ file_name: 'customers' }));
  await rt.succeed(task.task_id, CSV);
  done = (await rt.call('GET', `/v1/tasks/${task.task_id}`, { token: a.api_key })).json;
});
afterAll(() => rt?.close());

/** The path and query of a signed link (the API answers it under PUBLIC_BASE_URL). */
const pathOf = (url: string) => url.slice(new URL(url).origin.length);

describe('GET /v1/tasks/{task_id}/download', () => {
  it("streams the task's file with its name and checksum", async () => {
    const res = await rt.call('GET', `/v1/tasks/${done.task_id}/download`, { token: a.api_key });
    expect(res.status).toBe(200);
    expect(res.text).toBe(CSV);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toContain('export.csv');
    expect(res.headers.get('x-content-sha256')).toBe(done.files[0]!.sha256);
  });

  it('answers 409 before the task succeeded and 410 once its files expired', async () => {
    const waiting = await rt.submit(a.api_key, taskBody({ operator_id: 'waiting' }));
    expectError(await rt.call('GET', `/v1/tasks/${waiting.task_id}/download`, { token: a.api_key }), 409, 'not_ready');
    const old = await rt.submit(a.api_key, taskBody({ operator_id: 'old' }));
    await rt.succeed(old.task_id);
    await markBatchExpired(rt.database.db, [old.task_id]);
    expectError(await rt.call('GET', `/v1/tasks/${old.task_id}/download`, { token: a.api_key }), 410, 'expired');
  });

  it("is a 404 for another project's task, a 422 for a NUL in the id, and needs a project key", async () => {
    expectError(await rt.call('GET', `/v1/tasks/${done.task_id}/download`, { token: b.api_key }), 404, 'not_found');
    expectError(await rt.call('GET', '/v1/tasks/tsk_%00/download', { token: a.api_key }), 422, 'validation_failed');
    await expectKeyRefusals(rt, 'GET', `/v1/tasks/${done.task_id}/download`, { project: a.api_key });
  });
});

describe('GET /v1/files/{task_id}/{name} (signed links)', () => {
  it('serves the file of files[].url with no key at all', async () => {
    expect(done.files[0]!.url.startsWith(`${rt.config.publicBaseUrl}/v1/files/${done.task_id}/`)).toBe(true);
    const res = await rt.call('GET', pathOf(done.files[0]!.url));
    expect(res.status).toBe(200);
    expect(res.text).toBe(CSV);
    expect(res.headers.get('x-content-sha256')).toBe(done.files[0]!.sha256);
  });

  it('refuses a tampered or incomplete link (403) and an expired one (410)', async () => {
    const url = new URL(done.files[0]!.url);
    const sig = url.searchParams.get('sig')!;
    url.searchParams.set('sig', `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`);
    expectError(await rt.call('GET', pathOf(url.href)), 403, 'invalid_signature');
    expectError(await rt.call('GET', `/v1/files/${done.task_id}/export.csv`), 403, 'invalid_signature');
    // Signed for another task: the signature covers the task and the name.
    expectError(await rt.call('GET', pathOf(done.files[0]!.url).replace(done.task_id, 'tsk_other')), 403, 'invalid_signature');
    const stale = signLink({ baseUrl: '', secret: LINK_SECRET, taskId: done.task_id, name: 'export.csv', expiresAt: new Date(Date.now() - 60_000) });
    expectError(await rt.call('GET', stale.url), 410, 'link_expired');
  });

  it('answers 404 for a well-signed link to no file, 409 to a task not done, 410 to expired files', async () => {
    const link = (taskId: string, name = 'export.csv') => signLink({ baseUrl: '', secret: LINK_SECRET, taskId, name, expiresAt: new Date(Date.now() + 60_000) }).url;
    expectError(await rt.call('GET', link('tsk_nosuchtask')), 404, 'not_found');
    expectError(await rt.call('GET', link(done.task_id, 'other.csv')), 404, 'not_found');
    const waiting = await rt.submit(a.api_key, taskBody({ operator_id: 'link-waiting' }));
    expectError(await rt.call('GET', link(waiting.task_id)), 409, 'not_ready');
    const old = await rt.submit(a.api_key, taskBody({ operator_id: 'link-old' }));
    await rt.succeed(old.task_id);
    await markBatchExpired(rt.database.db, [old.task_id]);
    expectError(await rt.call('GET', link(old.task_id)), 410, 'expired');
  });
});

itCalledItsRoutes('files', () => rt);
