// /v1/projects in process (route-app.ts): the admin registers, lists, changes and rotates; a project
// reads only itself.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projects } from '../../db/schema.js';
import { maskKeyOf, resealMaskKeys } from '../../domain/projects/mask-key.js';
import { keyId } from '../../platform/sealed.js';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { ADMIN, type Project, type RouteApp, startWithTwoProjects } from '../support/route-app.js';
import { itCalledItsRoutes } from './routes.js';

let rt: RouteApp;
let a: Project;
let b: Project;
beforeAll(async () => ({ rt, a, b } = await startWithTwoProjects({ MAX_BODY_BYTES: '4096' })));
afterAll(() => rt?.close());

const admin = { token: ADMIN };

describe('POST /v1/projects', () => {
  it('registers a project (201) whose key then works, the secrets shown once', async () => {
    const res = await rt.call('POST', '/v1/projects', { ...admin, body: { name: ' new one ', source_hosts: ['Data.Example:8443', 'data.example:8443'], max_running_tasks: 3 } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ name: 'new one', source_hosts: ['data.example:8443'], callback_hosts: [], max_running_tasks: 3 });
    expect(res.json.api_key).toEqual(expect.any(String));
    expect(res.json.webhook_secret).toEqual(expect.any(String));
    const own = await rt.call('GET', `/v1/projects/${res.json.project_id}`, { token: res.json.api_key });
    expect(own.status).toBe(200);
    expect(own.json.api_key).toBeUndefined();
  });

  it('refuses a bad body: 422 naming the fields, 400 for bad JSON, 413 over MAX_BODY_BYTES', async () => {
    const res = await rt.call('POST', '/v1/projects', { ...admin, body: { name: '', source_hosts: [], max_running_tasks: 0 } });
    expectError(res, 422, 'validation_failed');
    expect(res.json.error.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['name', 'source_hosts', 'max_running_tasks']));
    expectError(await rt.call('POST', '/v1/projects', { ...admin, raw: '{', headers: { 'content-type': 'application/json' } }), 400, 'malformed_json');
    expectError(await rt.call('POST', '/v1/projects', { ...admin, body: { name: 'x'.repeat(5000), source_hosts: ['a.example'] } }), 413, 'payload_too_large');
  });

  it('keeps embed_origins (https origins, none by default), and PATCH changes them', async () => {
    const made = await rt.call('POST', '/v1/projects', { ...admin, body: { name: 'embeds', source_hosts: ['a.example'] } });
    expect(made.json.embed_origins).toEqual([]);
    const set = await rt.call('PATCH', `/v1/projects/${made.json.project_id}`, { ...admin, body: { embed_origins: ['https://Shop.Example', 'https://shop.example', 'https://erp.example:8443'] } });
    expect(set.status).toBe(200);
    expect(set.json.embed_origins).toEqual(['https://shop.example', 'https://erp.example:8443']);
    expect((await rt.call('GET', `/v1/projects/${made.json.project_id}`, { token: made.json.api_key })).json.embed_origins).toEqual(['https://shop.example', 'https://erp.example:8443']);
    expect((await rt.call('PATCH', `/v1/projects/${made.json.project_id}`, { ...admin, body: { embed_origins: ['http://127.0.0.1:5173'] } })).json.embed_origins).toEqual(['http://127.0.0.1:5173']);
    for (const bad of ['http://shop.example', 'https://shop.example/path', '*', 'https://*.example']) {
      expectError(await rt.call('PATCH', `/v1/projects/${made.json.project_id}`, { ...admin, body: { embed_origins: [bad] } }), 422, 'validation_failed');
    }
  });

  it('keeps email_domains (domains, none by default), and PATCH changes them', async () => {
    const made = await rt.call('POST', '/v1/projects', { ...admin, body: { name: 'mails', source_hosts: ['a.example'] } });
    expect(made.json.email_domains).toEqual([]);
    const set = await rt.call('PATCH', `/v1/projects/${made.json.project_id}`, { ...admin, body: { email_domains: ['Example.COM', 'example.com', 'corp.example.cn'] } });
    expect(set.json.email_domains).toEqual(['example.com', 'corp.example.cn']);
    for (const bad of ['localhost', '@example.com', 'a@example.com', 'https://example.com', '*.example.com', 'example..com']) {
      expectError(await rt.call('PATCH', `/v1/projects/${made.json.project_id}`, { ...admin, body: { email_domains: [bad] } }), 422, 'validation_failed');
    }
  });

  it('keeps alert_emails (on email_domains) and alert_callback (on callback_hosts), none by default', async () => {
    const made = await rt.call('POST', '/v1/projects', { ...admin, body: { name: 'alerts', source_hosts: ['a.example'], callback_hosts: ['hooks.example'], email_domains: ['example.com'] } });
    expect(made.json).toMatchObject({ alert_emails: [], alert_callback: null });
    const at = `/v1/projects/${made.json.project_id}`;
    const set = await rt.call('PATCH', at, { ...admin, body: { alert_emails: ['Ops@Example.com', 'ops@example.com'], alert_callback: 'https://hooks.example/dc' } });
    expect(set.json).toMatchObject({ alert_emails: ['ops@example.com'], alert_callback: 'https://hooks.example/dc' });
    expectError(await rt.call('PATCH', at, { ...admin, body: { alert_emails: ['ops@elsewhere.example'] } }), 422, 'email_domain_not_allowed');
    expectError(await rt.call('PATCH', at, { ...admin, body: { alert_callback: 'https://elsewhere.example/dc' } }), 422, 'callback_host_not_allowed');
    expectError(await rt.call('PATCH', at, { ...admin, body: { alert_callback: 'http://169.254.169.254/x', callback_hosts: ['169.254.169.254'] } }), 422, 'callback_host_not_allowed');
    expectError(await rt.call('PATCH', at, { ...admin, body: { alert_emails: ['not-an-address'] } }), 422, 'validation_failed');
    expectError(await rt.call('PATCH', at, { ...admin, body: { alert_emails: Array.from({ length: 21 }, (_, i) => `a${i}@example.com`) } }), 422, 'validation_failed');
    // Checked against the lists as the same change leaves them; null takes the callback away.
    expect((await rt.call('PATCH', at, { ...admin, body: { callback_hosts: ['new.example'], alert_callback: 'https://new.example/dc' } })).status).toBe(200);
    expect((await rt.call('PATCH', at, { ...admin, body: { alert_callback: null, alert_emails: [] } })).json).toMatchObject({ alert_emails: [], alert_callback: null });
    expectError(await rt.call('POST', '/v1/projects', { ...admin, body: { name: 'x', source_hosts: ['a.example'], alert_callback: 'https://hooks.example/dc' } }), 422, 'callback_host_not_allowed');
  });

  it('keeps the CSV defaults (comma, CR LF and a BOM unless set), and PATCH changes them', async () => {
    const made = await rt.call('POST', '/v1/projects', { ...admin, body: { name: 'dialects', source_hosts: ['a.example'] } });
    expect(made.json).toMatchObject({ csv_delimiter: ',', csv_line_ending: 'crlf', csv_bom: true });
    const set = await rt.call('PATCH', `/v1/projects/${made.json.project_id}`, { ...admin, body: { csv_delimiter: '\t', csv_line_ending: 'lf', csv_bom: false } });
    expect(set.json).toMatchObject({ csv_delimiter: '\t', csv_line_ending: 'lf', csv_bom: false });
    expect((await rt.call('GET', `/v1/projects/${made.json.project_id}`, { token: made.json.api_key })).json).toMatchObject({ csv_delimiter: '\t', csv_line_ending: 'lf' });
    for (const bad of [{ csv_delimiter: ':' }, { csv_delimiter: ';;' }, { csv_line_ending: 'CRLF' }, { csv_bom: 'yes' }]) {
      expectError(await rt.call('PATCH', `/v1/projects/${made.json.project_id}`, { ...admin, body: bad }), 422, 'validation_failed');
    }
  });

  it('is for the admin', async () => {
    await expectKeyRefusals(rt, 'POST', '/v1/projects', 'admin', { body: { name: 'x', source_hosts: ['a.example'] } });
  });
});

describe('GET /v1/projects and /v1/projects/{project_id}', () => {
  it('lists every project to the admin, a page at a time', async () => {
    const first = await rt.call('GET', '/v1/projects?limit=1', admin);
    expect(first.status).toBe(200);
    expect(first.json.items).toHaveLength(1);
    const all = [...first.json.items];
    for (let cursor = first.json.next_cursor; cursor; ) {
      const page = await rt.call('GET', `/v1/projects?limit=1&cursor=${encodeURIComponent(cursor)}`, admin);
      all.push(...page.json.items);
      cursor = page.json.next_cursor;
    }
    expect(all.map((p: { project_id: string }) => p.project_id)).toEqual(expect.arrayContaining([a.project_id, b.project_id]));
    expectError(await rt.call('GET', '/v1/projects?limit=0', admin), 422, 'validation_failed');
    await expectKeyRefusals(rt, 'GET', '/v1/projects', 'admin');
  });

  it('shows a project to the admin and to itself; to another project it does not exist', async () => {
    expect((await rt.call('GET', `/v1/projects/${a.project_id}`, admin)).json).toMatchObject({ project_id: a.project_id, name: 'a' });
    expect((await rt.call('GET', `/v1/projects/${a.project_id}`, { token: a.api_key })).json.project_id).toBe(a.project_id);
    expectError(await rt.call('GET', `/v1/projects/${a.project_id}`, { token: b.api_key }), 404, 'not_found');
    expectError(await rt.call('GET', '/v1/projects/prj_nosuchproject', admin), 404, 'not_found');
    expectError(await rt.call('GET', '/v1/projects/prj_%00', admin), 422, 'validation_failed');
    expectError(await rt.call('GET', `/v1/projects/${a.project_id}`), 401, 'unauthorized');
    expectError(await rt.call('GET', `/v1/projects/${a.project_id}`, { token: 'dc_not-a-key-of-anyone' }), 401, 'unauthorized');
  });
});

describe('PATCH /v1/projects/{project_id}', () => {
  it('changes the fields sent and keeps the others', async () => {
    const res = await rt.call('PATCH', `/v1/projects/${b.project_id}`, { ...admin, body: { max_running_tasks: 7, callback_hosts: ['hooks.example'] } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ project_id: b.project_id, name: 'b', max_running_tasks: 7, callback_hosts: ['hooks.example'], source_hosts: ['127.0.0.1'] });
    expect((await rt.call('GET', `/v1/projects/${b.project_id}`, admin)).json.max_running_tasks).toBe(7);
  });

  it('refuses an empty change, an unknown field or a bad value (422), and a missing project (404)', async () => {
    const path = `/v1/projects/${b.project_id}`;
    expectError(await rt.call('PATCH', path, { ...admin, body: {} }), 422, 'validation_failed');
    expectError(await rt.call('PATCH', path, { ...admin, body: { colour: 'blue' } }), 422, 'validation_failed');
    const bad = await rt.call('PATCH', path, { ...admin, body: { retention_hours: -1 } });
    expectError(bad, 422, 'validation_failed');
    expect(bad.json.error.details[0].field).toBe('retention_hours');
    expectError(await rt.call('PATCH', '/v1/projects/prj_nosuchproject', { ...admin, body: { name: 'x' } }), 404, 'not_found');
  });

  it('is for the admin, even on the project itself', async () => {
    await expectKeyRefusals(rt, 'PATCH', `/v1/projects/${b.project_id}`, 'admin', { body: { name: 'x' } });
    expectError(await rt.call('PATCH', `/v1/projects/${b.project_id}`, { token: b.api_key, body: { max_running_tasks: 100 } }), 403, 'forbidden');
  });
});

describe('rotating the key and the webhook secret', () => {
  it('gives a new key; the old one keeps working for the grace period', async () => {
    const p = await rt.createProject({ name: 'rotating' });
    const res = await rt.call('POST', `/v1/projects/${p.project_id}/rotate-key`, admin);
    expect(res.status).toBe(200);
    expect(res.json.api_key).not.toBe(p.api_key);
    expect(Date.parse(res.json.previous_key_expires_at)).toBeGreaterThan(Date.now());
    for (const key of [p.api_key, res.json.api_key]) expect((await rt.call('GET', `/v1/projects/${p.project_id}`, { token: key })).status).toBe(200);
  });

  it('gives a new webhook secret, the previous one valid until a time', async () => {
    const res = await rt.call('POST', `/v1/projects/${a.project_id}/rotate-webhook-secret`, admin);
    expect(res.status).toBe(200);
    expect(res.json.webhook_secret).not.toBe(a.webhook_secret);
    expect(Date.parse(res.json.previous_secret_expires_at)).toBeGreaterThan(Date.now());
  });

  it('answers 404 for a missing project, 422 for a NUL in its id, and is for the admin', async () => {
    for (const what of ['rotate-key', 'rotate-webhook-secret']) {
      expectError(await rt.call('POST', `/v1/projects/prj_nosuchproject/${what}`, admin), 404, 'not_found');
      expectError(await rt.call('POST', `/v1/projects/prj_%00/${what}`, admin), 422, 'validation_failed');
      await expectKeyRefusals(rt, 'POST', `/v1/projects/${a.project_id}/${what}`, 'admin');
    }
  });
});

describe('masked columns and the hash key', () => {
  const keys = ['route-test-destination-key-0123456789abcdef'];
  const sealed = async (id: string) => (await rt.database.db.select({ s: projects.maskKeySealed }).from(projects).where(eq(projects.id, id)))[0]!.s;

  it('keeps mask_columns (none by default); PATCH replaces them; a bad mask is a 422 naming the column', async () => {
    const made = await rt.call('POST', '/v1/projects', { ...admin, body: { name: 'masking', source_hosts: ['a.example'], mask_columns: { phone: 'phone', card: { keep_start: 6, keep_end: 4 } } } });
    expect(made.status).toBe(201);
    expect(made.json.mask_columns).toEqual({ phone: 'phone', card: { keep_start: 6, keep_end: 4 } });
    const path = `/v1/projects/${made.json.project_id}`;
    const set = await rt.call('PATCH', path, { ...admin, body: { mask_columns: { 姓名: 'name', email: 'email' } } });
    expect(set.json.mask_columns).toEqual({ 姓名: 'name', email: 'email' });
    expect((await rt.call('GET', path, { token: made.json.api_key })).json.mask_columns).toEqual({ 姓名: 'name', email: 'email' });
    const bad = await rt.call('PATCH', path, { ...admin, body: { mask_columns: { phone: 'mobile' } } });
    expectError(bad, 422, 'validation_failed');
    expect(bad.json.error.details[0].field).toMatch(/^mask_columns/);
    expectError(await rt.call('PATCH', path, { ...admin, body: { mask_columns: { phone: { keep_start: 100 } } } }), 422, 'validation_failed');
    expect((await rt.call('GET', path, { ...admin })).json.mask_columns).toEqual({ 姓名: 'name', email: 'email' });
    expect((await rt.call('PATCH', path, { ...admin, body: { mask_columns: {} } })).json.mask_columns).toEqual({});
  });

  it('makes the hash key at creation, sealed, and never shows it; rotating it gives another', async () => {
    const made = await rt.call('POST', '/v1/projects', { ...admin, body: { name: 'hashing', source_hosts: ['a.example'] } });
    const id = made.json.project_id as string;
    const first = await sealed(id);
    expect(first).toMatch(/^v1\./);
    const key = await maskKeyOf(rt.database.db, id, keys);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(first).not.toContain(key);
    const res = await rt.call('POST', `/v1/projects/${id}/rotate-mask-key`, admin);
    expect(res.status).toBe(200);
    expect(Date.parse(res.json.mask_key_rotated_at)).toBeGreaterThan(Date.now() - 60_000);
    const after = await maskKeyOf(rt.database.db, id, keys);
    expect(after).not.toBe(key);
    for (const answer of [made, res, await rt.call('GET', `/v1/projects/${id}`, admin)]) {
      const text = JSON.stringify(answer.json);
      expect(text).not.toContain(key);
      expect(text).not.toContain(after);
      expect(text).not.toContain('v1.');
    }
  });

  it('makes a key on first use for a project that has none, the same one for two uses at once', async () => {
    await rt.database.db.update(projects).set({ maskKeySealed: null }).where(eq(projects.id, b.project_id));
    const [k1, k2] = await Promise.all([maskKeyOf(rt.database.db, b.project_id, keys), maskKeyOf(rt.database.db, b.project_id, keys)]);
    expect(k1).toBe(k2);
    expect(await maskKeyOf(rt.database.db, b.project_id, keys)).toBe(k1);
  });

  it('after a DESTINATION_KEYS rotation, re-seals every hash key with the new server key; the hash keys stay the same', async () => {
    const before = await maskKeyOf(rt.database.db, a.project_id, keys);
    const rotated = ['a-new-server-key-0123456789abcdef0123', ...keys];
    const { resealed, unreadable } = await resealMaskKeys(rt.database.db, rotated);
    expect(resealed).toBeGreaterThan(0);
    expect(unreadable).toEqual([]);
    expect((await sealed(a.project_id))!.split('.')[1]).toBe(keyId(rotated[0]!));
    // The old server key can be dropped now: the new one alone opens the same hash key.
    expect(await maskKeyOf(rt.database.db, a.project_id, [rotated[0]!])).toBe(before);
    expect((await resealMaskKeys(rt.database.db, rotated)).resealed).toBe(0);
  });

  it('rotate-mask-key answers 404 for a missing project and is for the admin', async () => {
    expectError(await rt.call('POST', '/v1/projects/prj_nosuchproject/rotate-mask-key', admin), 404, 'not_found');
    await expectKeyRefusals(rt, 'POST', `/v1/projects/${a.project_id}/rotate-mask-key`, 'admin');
  });
});

itCalledItsRoutes('projects', () => rt);
