// Operator sessions in process (route-app.ts): minting and revoking them, and exactly what their
// token may do — its operator's tasks of its project, the permitted actions, nothing else.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCleanupActivities } from '../../activities/cleanup.js';
import { operatorSessions, projects } from '../../db/schema.js';
import { listening, PROJECT_EVENTS_CHANNEL, projectChanged } from '../../domain/projects/key-cache.js';
import { getProject } from '../../domain/projects/projects.js';
import { createOperatorSession, MAX_OPERATOR_SESSIONS, operatorSessionUrl, purgeEndedSessions } from '../../domain/projects/sessions.js';
import { sha256Hex } from '../../platform/crypto.js';
import { runActivity } from '../support/activity-env.js';
import { expectError, expectKeyRefusals } from '../support/route-checks.js';
import { ADMIN, type Project, type RouteApp, startWithTwoProjects, taskBody } from '../support/route-app.js';
import { itCalledItsRoutes, ROUTE_TESTS } from './routes.js';

let rt: RouteApp;
let a: Project;
let b: Project;
beforeAll(async () => ({ rt, a, b } = await startWithTwoProjects()));
afterAll(() => rt?.close());

const mint = async (body: Record<string, unknown>, key = a.api_key) => {
  const res = await rt.call('POST', '/v1/operator-sessions', { token: key, body });
  expect(res.status, res.text).toBe(201);
  return res.json as { session_id: string; token: string; url: string; permissions: string[]; expires_at: string; locale: string };
};

describe('POST /v1/operator-sessions', () => {
  it('mints a token for one operator with defaults: an hour, download only, en; the url carries it in the fragment', async () => {
    const before = Date.now();
    const s = await mint({ operator_id: 'u42' });
    expect(s).toEqual({ session_id: expect.stringMatching(/^ops_/), token: expect.stringMatching(/^dco_[\w-]{43}$/), url: `http://dc.test/operator#token=${s.token}`, operator_id: 'u42', permissions: ['download'], expires_at: expect.any(String), locale: 'en' });
    const expires = Date.parse(s.expires_at) - before;
    expect(expires).toBeGreaterThanOrEqual(3_599_000);
    expect(expires).toBeLessThan(3_700_000);
    // Only the hash is stored.
    const [row] = await rt.database.db.select().from(operatorSessions).where(eq(operatorSessions.id, s.session_id));
    expect(row!.tokenHash).not.toContain(s.token);
    expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('always grants download, keeps the permissions asked for, and the locale', async () => {
    const s = await mint({ operator_id: 'u42', expires_in: 60, permissions: ['pause', 'cancel'], locale: 'zh-CN' });
    expect(s.permissions).toEqual(['download', 'cancel', 'pause']);
    expect(s.locale).toBe('zh-CN');
  });

  it('is capped: a project holds at most MAX_OPERATOR_SESSIONS unexpired sessions, revoked ones included (409 limit_reached)', async () => {
    const p = await rt.createProject({ name: 'capped' });
    const until = new Date(Date.now() + 3_600_000);
    const rows = Array.from({ length: MAX_OPERATOR_SESSIONS - 1 }, (_, i) => ({
      id: `ops_cap${i}`,
      projectId: p.project_id,
      operatorId: 'u',
      tokenHash: sha256Hex(`cap-${p.project_id}-${i}`),
      projectKeyHash: 'x',
      permissions: ['download'],
      locale: 'en',
      expiresAt: until,
    }));
    for (let i = 0; i < rows.length; i += 1000) await rt.database.db.insert(operatorSessions).values(rows.slice(i, i + 1000));
    const last = await mint({ operator_id: 'u' }, p.api_key);
    const over = await rt.call('POST', '/v1/operator-sessions', { token: p.api_key, body: { operator_id: 'u' } });
    expectError(over, 409, 'limit_reached');
    expect(over.json.error.message).toContain(String(MAX_OPERATOR_SESSIONS));
    // A revoked session counts until its expiry; an expired one no longer does.
    expect((await rt.call('DELETE', `/v1/operator-sessions/${last.session_id}`, { token: p.api_key })).status).toBe(204);
    expectError(await rt.call('POST', '/v1/operator-sessions', { token: p.api_key, body: { operator_id: 'u' } }), 409, 'limit_reached');
    await rt.database.db.update(operatorSessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(operatorSessions.id, 'ops_cap0'));
    await mint({ operator_id: 'u' }, p.api_key);
    // Another project is not held by this one's count.
    await mint({ operator_id: 'u' });
    await rt.database.db.delete(operatorSessions).where(eq(operatorSessions.projectId, p.project_id));
  });

  it('refuses bodies out of the contract with 422', async () => {
    for (const body of [{}, { operator_id: '' }, { operator_id: 'u', expires_in: 59 }, { operator_id: 'u', expires_in: 86_401 }, { operator_id: 'u', permissions: ['delete'] }, { operator_id: 'u', locale: 'fr' }, { operator_id: 'u', extra: 1 }]) {
      expectError(await rt.call('POST', '/v1/operator-sessions', { token: a.api_key, body }), 422, 'validation_failed');
    }
  });

  it('needs a project key', async () => {
    await expectKeyRefusals(rt, 'POST', '/v1/operator-sessions', { project: a.api_key }, { body: { operator_id: 'u' } });
    const op = await mint({ operator_id: 'u' });
    expectError(await rt.call('POST', '/v1/operator-sessions', { token: op.token, body: { operator_id: 'u' } }), 403, 'forbidden');
  });
});

describe('DELETE /v1/operator-sessions/{session_id}', () => {
  it('revokes at once (204, again 204); the token then answers 401', async () => {
    const s = await mint({ operator_id: 'u42' });
    expect((await rt.call('GET', '/v1/tasks', { token: s.token })).status).toBe(200);
    expect((await rt.call('DELETE', `/v1/operator-sessions/${s.session_id}`, { token: a.api_key })).status).toBe(204);
    expectError(await rt.call('GET', '/v1/tasks', { token: s.token }), 401, 'unauthorized');
    expect((await rt.call('DELETE', `/v1/operator-sessions/${s.session_id}`, { token: a.api_key })).status).toBe(204);
  });

  it('revoking again changes nothing: the same 204, no write, no notice, no cache forgotten', async () => {
    const s = await mint({ operator_id: 'u42' });
    const cache = listening(rt.database);
    await cache.listening;
    // The key cache's generation moves on every forget: here at once, and on every NOTIFY heard.
    // A sentinel notice sent after the call arrives after any notice the call sent, so once the
    // sentinel is heard the count is complete.
    const forgets = async (call: () => Promise<unknown>) => {
      const before = cache.generation;
      await call();
      const afterCall = cache.generation;
      await rt.database.db.execute(sql`select pg_notify(${PROJECT_EVENTS_CHANNEL}, 'sentinel')`);
      await vi.waitUntil(() => cache.generation > afterCall, { timeout: 10_000, interval: 10 });
      return cache.generation - before - 1;
    };
    const revoke = () => rt.call('DELETE', `/v1/operator-sessions/${s.session_id}`, { token: a.api_key });
    expect(await forgets(async () => expect((await revoke()).status).toBe(204))).toBeGreaterThan(0);
    const [first] = await rt.database.db.select().from(operatorSessions).where(eq(operatorSessions.id, s.session_id));
    expect(await forgets(async () => expect((await revoke()).status).toBe(204))).toBe(0);
    const [again] = await rt.database.db.select().from(operatorSessions).where(eq(operatorSessions.id, s.session_id));
    expect(again!.revokedAt).toEqual(first!.revokedAt);
  });

  it("another project's session and an unknown one are 404; keys are checked", async () => {
    const s = await mint({ operator_id: 'u42' });
    expectError(await rt.call('DELETE', `/v1/operator-sessions/${s.session_id}`, { token: b.api_key }), 404, 'not_found');
    expectError(await rt.call('DELETE', '/v1/operator-sessions/ops_nobody', { token: a.api_key }), 404, 'not_found');
    await expectKeyRefusals(rt, 'DELETE', `/v1/operator-sessions/${s.session_id}`, { project: a.api_key });
    expect((await rt.call('GET', '/v1/tasks', { token: s.token })).status).toBe(200);
  });
});

describe('what an operator token may do', () => {
  let mine: any;
  let theirs: any;
  let token: string;
  let cancelOnly: string;
  beforeAll(async () => {
    mine = await rt.submit(a.api_key, taskBody({ operator_id: 'alice' }));
    theirs = await rt.submit(a.api_key, taskBody({ operator_id: 'bob' }));
    await rt.submit(b.api_key, taskBody({ operator_id: 'alice' }));
    await rt.drained();
    token = (await mint({ operator_id: 'alice', permissions: ['pause'] })).token;
    cancelOnly = (await mint({ operator_id: 'alice', permissions: ['cancel'] })).token;
  });

  it('lists and counts only its operator’s tasks of its project; naming another operator is 403', async () => {
    const list = await rt.call('GET', '/v1/tasks', { token });
    expect(list.json.items.map((t: any) => t.task_id)).toEqual([mine.task_id]);
    expect((await rt.call('GET', '/v1/tasks?operator_id=alice', { token })).json.items).toHaveLength(1);
    expectError(await rt.call('GET', '/v1/tasks?operator_id=bob', { token }), 403, 'forbidden');
    const counts = await rt.call('GET', '/v1/tasks/counts', { token });
    expect(Object.values(counts.json.counts as Record<string, number>).reduce((x, y) => x + y, 0)).toBe(1);
    expectError(await rt.call('GET', '/v1/tasks/counts?operator_id=bob', { token }), 403, 'forbidden');
  });

  it('reads and downloads its own tasks; another operator’s is 404', async () => {
    expect((await rt.call('GET', `/v1/tasks/${mine.task_id}`, { token })).json.operator_id).toBe('alice');
    expectError(await rt.call('GET', `/v1/tasks/${theirs.task_id}`, { token }), 404, 'not_found');
    const done = await rt.submit(a.api_key, taskBody({ operator_id: 'alice', file_name: 'done' }));
    await rt.drained();
    await rt.succeed(done.task_id);
    const file = await rt.call('GET', `/v1/tasks/${done.task_id}/download`, { token });
    expect(file.status).toBe(200);
    expect(file.text).toContain('id,name');
    expectError(await rt.call('GET', `/v1/tasks/${theirs.task_id}/download`, { token }), 404, 'not_found');
  });

  it('acts only with the permission (else 403) and on its own tasks (else 404)', async () => {
    expectError(await rt.call('POST', `/v1/tasks/${mine.task_id}/cancel`, { token }), 403, 'forbidden');
    expectError(await rt.call('POST', `/v1/tasks/${mine.task_id}/retry`, { token }), 403, 'forbidden');
    expectError(await rt.call('POST', `/v1/tasks/${theirs.task_id}/pause`, { token }), 404, 'not_found');
    expect((await rt.call('POST', `/v1/tasks/${mine.task_id}/pause`, { token })).json.status).toBe('paused');
    rt.temporal.closeRun(mine.task_id);
    // `pause` covers resume.
    expect((await rt.call('POST', `/v1/tasks/${mine.task_id}/resume`, { token })).json.status).toBe('queued');
    expectError(await rt.call('POST', `/v1/tasks/${mine.task_id}/pause`, { token: cancelOnly }), 403, 'forbidden');
    expectError(await rt.call('POST', `/v1/tasks/${theirs.task_id}/cancel`, { token: cancelOnly }), 404, 'not_found');
    expect((await rt.call('POST', `/v1/tasks/${mine.task_id}/cancel`, { token: cancelOnly })).json.status).toBe('cancelled');
  });

  it('is refused (403) on every other documented route', async () => {
    const open = new Set(['GET /healthz', 'GET /readyz', 'GET /v1/files/{task_id}/{name}', 'GET /v1/ws']);
    // Their own downloads too (test/routes/downloads.test.ts); a task's whole record stays with the project key.
    const allowed = /^(GET \/v1\/tasks(\/counts|\/\{task_id\}(\/download)?)?|GET \/v1\/downloads(\/count)?|POST \/v1\/tasks\/\{task_id\}\/(cancel|retry|pause|resume))$/;
    const others = Object.keys(ROUTE_TESTS).filter((r) => !open.has(r) && !allowed.test(r));
    expect(others).toContain('GET /v1/tasks/{task_id}/deliveries');
    expect(others).toContain('GET /v1/tasks/{task_id}/downloads');
    const ids: Record<string, string> = { task_id: mine.task_id, project_id: a.project_id, schedule_id: 'sch_x', session_id: 'ops_x' };
    for (const route of others) {
      const [method, template] = route.split(' ') as [string, string];
      const path = template.replace(/\{(\w+)\}/g, (_, k: string) => ids[k]!);
      expectError(await rt.call(method, path, { token, body: method === 'GET' || method === 'DELETE' ? undefined : {} }), 403, 'forbidden');
    }
  });

  it('ends when it expires, and when the project key it was made under stops working', async () => {
    const expiring = await mint({ operator_id: 'alice', expires_in: 60 });
    expect((await rt.call('GET', '/v1/tasks', { token: expiring.token })).status).toBe(200);
    // A minute later (the session's expires_in), cached or not, it is over.
    const now = vi.spyOn(Date, 'now').mockReturnValue(Date.parse(expiring.expires_at) + 1);
    try {
      expectError(await rt.call('GET', '/v1/tasks', { token: expiring.token }), 401, 'unauthorized');
    } finally {
      now.mockRestore();
    }

    const c = await rt.createProject({ name: 'c' });
    const s = await mint({ operator_id: 'alice' }, c.api_key);
    const rotated = await rt.call('POST', `/v1/projects/${c.project_id}/rotate-key`, { token: ADMIN });
    expect(rotated.status).toBe(200);
    // Within the rotation's grace the session goes on; a session made under the new key is untouched by it.
    expect((await rt.call('GET', '/v1/tasks', { token: s.token })).status).toBe(200);
    const after = await mint({ operator_id: 'alice' }, rotated.json.api_key);
    await rt.database.db.update(projects).set({ previousKeyExpiresAt: new Date(Date.now() - 1) }).where(eq(projects.id, c.project_id));
    await projectChanged(rt.database.db, c.project_id);
    expectError(await rt.call('GET', '/v1/tasks', { token: s.token }), 401, 'unauthorized');
    expect((await rt.call('GET', '/v1/tasks', { token: after.token })).status).toBe(200);
  });

  it('never travels in a URL: ?access_token= refuses an operator token (401)', async () => {
    const s = await mint({ operator_id: 'alice' });
    const upgrade = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' };
    const res = await rt.call('GET', `/v1/ws?access_token=${s.token}`, { headers: upgrade });
    expectError(res, 401, 'unauthorized');
    expect(res.json.error.message).toMatch(/never in the URL/);
  });
});

describe("a session of one task (an e-mail's link)", () => {
  let one: any;
  let other: any;
  let token: string;
  beforeAll(async () => {
    one = await rt.submit(a.api_key, taskBody({ operator_id: 'carol', file_name: 'mailed' }));
    other = await rt.submit(a.api_key, taskBody({ operator_id: 'carol', file_name: 'other' }));
    await rt.drained();
    await rt.succeed(one.task_id);
    await rt.succeed(other.task_id);
    const project = (await getProject(rt.database.db, a.project_id))!;
    token = (await createOperatorSession(rt.database.db, project, { operatorId: 'carol', taskId: one.task_id, expiresIn: 3600, permissions: ['download'], locale: 'en' })).token;
  });

  it('lists and counts that task alone; another task of the same operator is 404 to read or download', async () => {
    const list = await rt.call('GET', '/v1/tasks', { token });
    expect(list.json.items.map((t: any) => t.task_id)).toEqual([one.task_id]);
    expect((await rt.call('GET', '/v1/tasks?operator_id=carol&limit=100', { token })).json.items).toHaveLength(1);
    const counts = (await rt.call('GET', '/v1/tasks/counts', { token })).json.counts as Record<string, number>;
    expect(Object.values(counts).reduce((x, y) => x + y, 0)).toBe(1);
    expect((await rt.call('GET', `/v1/tasks/${one.task_id}`, { token })).status).toBe(200);
    expect((await rt.call('GET', `/v1/tasks/${one.task_id}/download`, { token })).status).toBe(200);
    expectError(await rt.call('GET', `/v1/tasks/${other.task_id}`, { token }), 404, 'not_found');
    expectError(await rt.call('GET', `/v1/tasks/${other.task_id}/download`, { token }), 404, 'not_found');
    // The operator's own session (not of one task) still sees both.
    const whole = (await mint({ operator_id: 'carol' })).token;
    expect((await rt.call('GET', '/v1/tasks', { token: whole })).json.items).toHaveLength(2);
  });

  it('opens the center like any session', async () => {
    const page = await rt.call('POST', '/operator', { raw: `token=${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(page.text).toContain('content="center"');
    expect(operatorSessionUrl('http://dc.test', token)).toBe(`http://dc.test/operator#token=${token}`);
  });

  it('lives at most a day, however long the files do', async () => {
    const project = (await getProject(rt.database.db, a.project_id))!;
    const { session } = await createOperatorSession(rt.database.db, project, { operatorId: 'carol', taskId: one.task_id, expiresIn: 365 * 86_400, permissions: ['download'], locale: 'en' });
    expect(session.expiresAt.getTime() - session.createdAt.getTime()).toBe(86_400_000);
  });
});

describe('the purge of ended sessions', () => {
  it('deletes expired sessions, revoked ones at their expiry, a bounded number a pass; live ones stay', async () => {
    const p = await rt.createProject({ name: 'purged' });
    const made = await Promise.all(Array.from({ length: 5 }, () => mint({ operator_id: 'u' }, p.api_key)));
    const ids = made.map((m) => m.session_id);
    const [live, revokedLive, ...ended] = ids as [string, string, ...string[]];
    expect((await rt.call('DELETE', `/v1/operator-sessions/${revokedLive}`, { token: p.api_key })).status).toBe(204);
    expect((await rt.call('DELETE', `/v1/operator-sessions/${ended[0]}`, { token: p.api_key })).status).toBe(204);
    await rt.database.db.update(operatorSessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(inArray(operatorSessions.id, ended));
    const left = async () => (await rt.database.db.select({ id: operatorSessions.id }).from(operatorSessions).where(eq(operatorSessions.projectId, p.project_id))).map((r) => r.id).sort();
    // Bounded: one batch of two is all this pass deletes.
    expect(await purgeEndedSessions(rt.database.db, { batch: 2, maxBatches: 1 })).toBe(2);
    expect(await left()).toHaveLength(3);
    // The cleanup's activity purges the rest beside the files' expiry.
    const activities = createCleanupActivities({ db: rt.database.db, storage: rt.storage, config: rt.config, linkSecret: 'x', destinationKeys: [], temporal: rt.temporal.client });
    await runActivity({}, () => activities.expireTasks({})).result;
    expect(await left()).toEqual([live, revokedLive].sort());
    const [still] = await rt.database.db.select().from(operatorSessions).where(and(eq(operatorSessions.id, revokedLive), eq(operatorSessions.projectId, p.project_id)));
    expect(still!.revokedAt).not.toBeNull();
  });
});

describe('POST /operator (the center page)', () => {
  it('reads a small form only: a larger body is 413 before it is parsed', async () => {
    const s = await mint({ operator_id: 'alice' });
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const ok = await rt.call('POST', '/operator', { raw: `token=${s.token}`, headers: form });
    expect(ok.status).toBe(200);
    const big = await rt.call('POST', '/operator', { raw: `token=${s.token}&pad=${'x'.repeat(4096)}`, headers: form });
    expect(big.status).toBe(413);
  });
});

itCalledItsRoutes('operator-sessions', () => rt);
