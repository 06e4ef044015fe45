// An open WebSocket keeps no credential forever: its key is checked again on a timer and at once on
// any key change, and a socket whose key no longer opens the project closes with 4401.
import { afterAll, expect, it } from 'vitest';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { type Client, connect } from '../support/ws-client.js';

const envs: TestEnv[] = [];
const clients: Client[] = [];

afterAll(async () => {
  for (const c of clients) c.close();
  await Promise.all(envs.map((e) => e.close()));
});

async function setup(vars: Record<string, string>) {
  const env = await startTestEnv({ WS_IDLE_MS: '60000', ...vars }, { worker: false });
  envs.push(env);
  const project = await env.createProject();
  const socket = await connect(env.base, { token: project.api_key, header: true });
  clients.push(socket);
  socket.send({ subscribe: '*' });
  await socket.next((m) => m.subscribed === '*');
  const rotate = async () => {
    const res = await env.api('POST', `/v1/projects/${project.project_id}/rotate-key`, { token: ADMIN });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    return res.json.api_key as string;
  };
  return { env, project, socket, rotate };
}

const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);

it('closes with 4401 at once when the key is revoked, long before its timer', async () => {
  const { env, socket, rotate } = await setup({ WS_AUTH_RECHECK_MS: '600000', KEY_ROTATION_GRACE_SECONDS: '3600' });
  await rotate(); // the socket's key now lives on in its grace period
  await new Promise((r) => setTimeout(r, 300));
  expect(socket.ws.readyState).toBe(socket.ws.OPEN);
  const fresh = await rotate(); // a second rotation revokes the key in grace at once
  expect(await within(socket.closed, 3000)).toEqual({ code: 4401, reason: 'the API key is no longer valid' });
  // The HTTP API agrees, and the newest key still connects.
  const other = await connect(env.base, { token: fresh, header: true });
  clients.push(other);
  expect(other.ws.readyState).toBe(other.ws.OPEN);
});

it('closes with 4401 when the rotation grace ends, by its timer', async () => {
  const { env, project, socket, rotate } = await setup({ WS_AUTH_RECHECK_MS: '300', KEY_ROTATION_GRACE_SECONDS: '2' });
  await rotate();
  await new Promise((r) => setTimeout(r, 1000));
  expect(socket.ws.readyState).toBe(socket.ws.OPEN); // still in grace
  const closed = await within(socket.closed, 4000);
  expect(closed.code).toBe(4401);
  expect((await env.api('GET', '/v1/tasks', { token: project.api_key })).status).toBe(401);
});
