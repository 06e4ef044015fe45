// /v1/destinations in process (route-app.ts): creation against the project's destination_hosts and
// every refused address form, the secret never answered, tenant isolation, the list, deletion, and
// the probe's answer for a bucket (or an SFTP server) that cannot be reached. What a real bucket
// answers (auth, bucket, permission, tls, dns) is test/e2e/destinations.test.ts's, on SeaweedFS;
// what a real sshd answers, test/e2e/sftp-destinations.test.ts's.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destinations } from '../../db/schema.js';
import { MAX_DESTINATIONS } from '../../domain/destinations/store.js';
import { freePort } from '../support/ports.js';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { ADMIN, type Project, type RouteApp, startRouteApp, taskBody } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

let rt: RouteApp;
let a: Project;
let b: Project;
let closedPort: number;
beforeAll(async () => {
  rt = await startRouteApp();
  closedPort = await freePort();
  [a, b] = [await rt.createProject({ name: 'a', destination_hosts: ['127.0.0.1', '*.example.com'] }), await rt.createProject({ name: 'b', destination_hosts: ['127.0.0.1'] })];
});
afterAll(() => rt?.close());

const SECRET = 'route-secret-0123456789-abcdef';
const body = (extra: Record<string, unknown> = {}) => ({
  name: 'warehouse',
  kind: 's3',
  endpoint: `http://127.0.0.1:${closedPort}`,
  region: 'us-east-1',
  bucket: 'exports',
  prefix: '/daily/',
  access_key_id: 'AKIAROUTETEST',
  secret_access_key: SECRET,
  path_style: true,
  ...extra,
});
const create = (key: string, extra: Record<string, unknown> = {}) => rt.call('POST', '/v1/destinations', { token: key, body: body(extra) });

describe('POST /v1/destinations', () => {
  it('creates one (201, Location); the secret is never answered', async () => {
    const res = await create(a.api_key);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ name: 'warehouse', kind: 's3', endpoint: `http://127.0.0.1:${closedPort}`, bucket: 'exports', prefix: 'daily/', access_key_id: 'AKIAROUTETEST', path_style: true });
    expect(res.json.destination_id).toMatch(/^dst_/);
    expect(res.headers.get('location')).toBe(`/v1/destinations/${res.json.destination_id}`);
    expect(res.text).not.toContain(SECRET);
    expect(res.json).not.toHaveProperty('secret_access_key');
  });

  it("refuses a host off the project's destination_hosts, and metadata or link-local addresses in any literal form (422)", async () => {
    for (const endpoint of ['https://s3.elsewhere.net', 'http://127.0.0.2:9000', 'http://169.254.169.254', 'http://0xa9fea9fe', 'http://2852039166', 'http://[::ffff:169.254.169.254]', 'http://[fe80::1]', 'http://metadata.google.internal']) {
      const res = await create(a.api_key, { endpoint });
      expectError(res, 422, 'destination_host_not_allowed');
      expect(res.json.error.details[0].field, endpoint).toBe('endpoint');
    }
  });

  it('refuses what is not a destination (422 on the field)', async () => {
    for (const [extra, field] of [
      [{ kind: 'ftp' }, 'kind'],
      [{ endpoint: 'http://127.0.0.1/some/path' }, 'endpoint'],
      [{ endpoint: 'http://user:pw@127.0.0.1' }, 'endpoint'],
      [{ endpoint: 'file:///etc/passwd' }, 'endpoint'],
      [{ endpoint: 'not a url' }, 'endpoint'],
      [{ bucket: 'Not_A_Bucket' }, 'bucket'],
      [{ prefix: 'a/../b' }, 'prefix'],
      [{ secret_access_key: '' }, 'secret_access_key'],
      [{ extra: 1 }, ''],
    ] as const) {
      const res = await create(a.api_key, extra);
      expectError(res, 422, 'validation_failed');
      if (field) expect(res.json.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
  });

  it('needs a project key', async () => {
    await expectKeyRefusals(rt, 'POST', '/v1/destinations', { project: a.api_key }, { body: body() });
  });
});

describe('reading, testing and deleting', () => {
  it("lists the project's own, newest first, paged; another project's is not found (404)", async () => {
    const mine = [(await create(b.api_key, { name: 'one' })).json, (await create(b.api_key, { name: 'two' })).json];
    const page = await rt.call('GET', '/v1/destinations?limit=1', { token: b.api_key });
    expect(page.status).toBe(200);
    expect(page.json.items.map((d: { name: string }) => d.name)).toEqual(['two']);
    const rest = await rt.call('GET', `/v1/destinations?limit=10&cursor=${page.json.next_cursor}`, { token: b.api_key });
    expect(rest.json).toMatchObject({ items: [{ name: 'one' }], next_cursor: null });
    expect(page.text + rest.text).not.toContain(SECRET);
    const one = await rt.call('GET', `/v1/destinations/${mine[0].destination_id}`, { token: b.api_key });
    expect(one.json).toEqual(mine[0]);
    expectError(await rt.call('GET', `/v1/destinations/${mine[0].destination_id}`, { token: a.api_key }), 404, 'destination_not_found');
    expectError(await rt.call('POST', `/v1/destinations/${mine[0].destination_id}/test`, { token: a.api_key }), 404, 'destination_not_found');
    expectError(await rt.call('DELETE', `/v1/destinations/${mine[0].destination_id}`, { token: a.api_key }), 404, 'destination_not_found');
    await expectKeyRefusals(rt, 'GET', '/v1/destinations', { project: b.api_key });
  });

  it('tests one: a bucket nobody listens for answers ok:false, step and code connect', async () => {
    const d = (await create(a.api_key)).json;
    const res = await rt.call('POST', `/v1/destinations/${d.destination_id}/test`, { token: a.api_key });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: false, step: 'write', error: { code: 'connect' } });
    expect(res.text).not.toContain(SECRET);
  });

  it("tests one whose host the admin removed since: host_not_allowed, nothing sent", async () => {
    const p = await rt.createProject({ name: 'c', destination_hosts: ['127.0.0.1'] });
    const d = (await create(p.api_key)).json;
    expect((await rt.call('PATCH', `/v1/projects/${p.project_id}`, { token: ADMIN, body: { destination_hosts: [] } })).status).toBe(200);
    const res = await rt.call('POST', `/v1/destinations/${d.destination_id}/test`, { token: p.api_key });
    expect(res.json).toMatchObject({ ok: false, step: 'connect', error: { code: 'host_not_allowed' } });
  });

  it('holds at most MAX_DESTINATIONS per project: one more is 409 limit_reached, until one is deleted', async () => {
    const p = await rt.createProject({ name: 'full', destination_hosts: ['127.0.0.1'] });
    const made = await Promise.all(Array.from({ length: MAX_DESTINATIONS }, () => create(p.api_key)));
    expect(made.map((r) => r.status)).toEqual(Array(MAX_DESTINATIONS).fill(201));
    const over = await create(p.api_key);
    expectError(over, 409, 'limit_reached');
    expect(over.json.error.message).toContain(String(MAX_DESTINATIONS));
    expect(await rt.database.db.$count(destinations, eq(destinations.projectId, p.project_id))).toBe(MAX_DESTINATIONS);
    expect((await create(b.api_key)).status).toBe(201); // another project is not held by this one's count
    expect((await rt.call('DELETE', `/v1/destinations/${made[0]!.json.destination_id}`, { token: p.api_key })).status).toBe(204);
    expect((await create(p.api_key)).status).toBe(201);
  });

  it('deletes one (204); then it is not found', async () => {
    const d = (await create(a.api_key)).json;
    expect((await rt.call('DELETE', `/v1/destinations/${d.destination_id}`, { token: a.api_key })).status).toBe(204);
    expectError(await rt.call('GET', `/v1/destinations/${d.destination_id}`, { token: a.api_key }), 404, 'destination_not_found');
  });
});

describe('POST /v1/tasks with a destination', () => {
  it("takes the project's destination and a path; refuses another project's, a bad path, a path alone, and the sync export", async () => {
    const d = (await create(a.api_key)).json;
    const other = (await create(b.api_key)).json;
    const ok = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ destination_id: d.destination_id, destination_path: '{{date}}/{{task_id}}-{{file_name}}' }) });
    expect(ok.status).toBe(202);
    expect(ok.json).toMatchObject({ destination_id: d.destination_id, destination_path: '{{date}}/{{task_id}}-{{file_name}}' });
    for (const [extra, field] of [
      [{ destination_id: other.destination_id }, 'destination_id'],
      [{ destination_id: d.destination_id, destination_path: '{{date}}/fixed.csv' }, 'destination_path'],
      [{ destination_id: d.destination_id, destination_path: '{{when}}/{{file_name}}' }, 'destination_path'],
      [{ destination_id: d.destination_id, destination_path: '../{{file_name}}' }, 'destination_path'],
      [{ destination_path: '{{file_name}}' }, 'destination_path'],
    ] as const) {
      const res = await rt.call('POST', '/v1/tasks', { token: a.api_key, body: taskBody({ operator_id: `op-${field}-${Math.random()}`, ...extra }) });
      expectError(res, 422, 'validation_failed');
      expect(res.json.error.details.map((x: { field: string }) => x.field), JSON.stringify(extra)).toContain(field);
    }
    expectError(await rt.call('POST', '/v1/tasks/sync', { token: a.api_key, body: taskBody({ destination_id: d.destination_id }) }), 422, 'validation_failed');
  });

  it('a schedule takes only its own project\'s destination, checked when it is created', async () => {
    const d = (await create(a.api_key)).json;
    const other = (await create(b.api_key)).json;
    const ok = await rt.call('POST', '/v1/schedules', { token: a.api_key, body: taskBody({ every: '1h', destination_id: d.destination_id, destination_path: '{{date}}/{{file_name}}' }) });
    expect(ok.status).toBe(201);
    expect(ok.json.task).toMatchObject({ destination_id: d.destination_id, destination_path: '{{date}}/{{file_name}}' });
    const res = await rt.call('POST', '/v1/schedules', { token: a.api_key, body: taskBody({ every: '1h', destination_id: other.destination_id }) });
    expectError(res, 422, 'validation_failed');
    expect(res.json.error.details[0].field).toBe('destination_id');
  });
});

describe('kind sftp', () => {
  const PASSWORD = 'route-sftp-password-0123456789';
  const sftp = (extra: Record<string, unknown> = {}) => ({
    name: 'partner',
    kind: 'sftp',
    host: '127.0.0.1',
    port: closedPort,
    username: 'acme',
    password: PASSWORD,
    host_key_sha256: `SHA256:${Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '')}`,
    path: '/incoming/',
    ...extra,
  });
  const createSftp = (key: string, extra: Record<string, unknown> = {}) => rt.call('POST', '/v1/destinations', { token: key, body: sftp(extra) });

  it('creates one (201): host, port, user, which secret, the pinned key and the directory; never the password', async () => {
    const res = await createSftp(a.api_key);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ kind: 'sftp', host: '127.0.0.1', port: closedPort, username: 'acme', auth: 'password', path: '/incoming/' });
    expect(res.text).not.toContain(PASSWORD);
    const [row] = await rt.database.db.select().from(destinations).where(eq(destinations.id, res.json.destination_id));
    expect(row!.secretSealed).not.toContain(PASSWORD);
    expect(row!.endpoint).toBeNull();
  });

  it("refuses a host off destination_hosts or a metadata address (422 on host), and a body that is not one (422)", async () => {
    for (const host of ['sftp.elsewhere.net', '169.254.169.254', '0xa9fea9fe', 'fe80::1', 'metadata.google.internal']) {
      const res = await createSftp(a.api_key, { host });
      expectError(res, 422, 'destination_host_not_allowed');
      expect(res.json.error.details[0].field, host).toBe('host');
    }
    for (const [extra, field] of [
      [{ private_key: 'x' }, 'password'],
      [{ password: undefined }, 'password'],
      [{ host_key_sha256: 'SHA256:abc' }, 'host_key_sha256'],
      [{ path: 'relative' }, 'path'],
      [{ port: 70000 }, 'port'],
      [{ endpoint: 'http://127.0.0.1' }, ''],
    ] as const) {
      const res = await createSftp(a.api_key, extra);
      expectError(res, 422, 'validation_failed');
      if (field) expect(res.json.error.details.map((d: { field: string }) => d.field), JSON.stringify(extra)).toContain(field);
    }
  });

  it('tests one nobody listens for: ok false at the connect step, every step before it ok', async () => {
    const d = (await createSftp(a.api_key)).json;
    const res = await rt.call('POST', `/v1/destinations/${d.destination_id}/test`, { token: a.api_key });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: false, step: 'connect', error: { code: 'connect' }, steps: [{ step: 'dns', ok: true }, { step: 'connect', ok: false }] });
    expect(res.text).not.toContain(PASSWORD);
  });
});

itCalledItsRoutes('destinations', () => rt);
