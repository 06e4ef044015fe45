// Submissions under pressure (docs/api.md#post-v1tasks): identical requests racing through two API processes,
// the submit rate across processes with a true Retry-After, and an API killed between recording a
// task and starting its run.
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { eq } from 'drizzle-orm';
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tasks } from '../../db/schema.js';
import { sweepProject } from '../../domain/tasks/admission.js';
import { oweStart, startPaid } from '../../domain/tasks/owed-starts.js';
import { newId } from '../../platform/crypto.js';
import { type ApiProcess, startApiProcess } from '../support/api-process.js';
import { startTestEnv, type TestEnv } from '../support/env.js';
import { sourcePool } from '../support/source-server.js';

let env: TestEnv;
let second: ApiProcess;
const { source, closeSources } = sourcePool();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  env = await startTestEnv();
  second = await startApiProcess(env);
});

afterAll(async () => {
  await second?.stop();
  await closeSources();
  await env?.close();
});

function post(base: string, key: string, body: Record<string, unknown>) {
  return fetch(`${base}/v1/tasks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ operator_id: 'op-r', page_size: 100, ...body }),
  }).then(async (res) => ({ status: res.status, headers: res.headers, json: (await res.json()) as any }));
}

it('50 identical submissions through two API processes make one task', async () => {
  const { api_key: key, project_id } = await env.createProject({ submit_per_minute: 1000 });
  const src = await source({ total: 300, delayMs: (r) => (r.pageSize === 1 ? 0 : 1000) });
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(i % 2 ? second.base : env.base, key, { source_url: src.url })));
  expect(new Set(answers.map((a) => a.json.task_id)).size).toBe(1);
  expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
  expect(answers.filter((a) => a.status === 200)).toHaveLength(49);
  const rows = await env.core.database.db.select().from(tasks).where(eq(tasks.projectId, project_id));
  expect(rows).toHaveLength(1);
});

it('limits the submit rate across processes with RateLimit headers and a Retry-After that holds', async () => {
  const { api_key: key } = await env.createProject({ submit_per_minute: 20 });
  const src = await source({ total: 10 });
  // 40 different submissions at once through both processes: exactly the quota gets in.
  const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => post(i % 2 ? second.base : env.base, key, { source_url: `${src.url}?n=${i}` })));
  expect(burst.filter((a) => a.status === 202)).toHaveLength(20);
  const refused = burst.filter((a) => a.status === 429);
  expect(refused).toHaveLength(20);
  const accepted = burst.find((a) => a.status === 202)!;
  expect(accepted.headers.get('ratelimit-policy')).toBe('"submit";q=20;w=60');
  expect(accepted.headers.get('ratelimit')).toMatch(/^"submit";r=\d+;t=\d+$/);
  for (const r of refused) expect(r.json.error.code).toBe('rate_limited');

  const no = await post(env.base, key, { source_url: `${src.url}?n=late` });
  expect(no.status).toBe(429);
  const retryAfter = Number(no.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(3);
  expect(no.headers.get('ratelimit')).toMatch(/^"submit";r=0;t=\d+$/);
  const refusedAt = Date.now();
  if (retryAfter >= 2) {
    await sleep(refusedAt + (retryAfter - 1) * 1000 - 300 - Date.now());
    expect((await post(second.base, key, { source_url: `${src.url}?n=early` })).status, 'accepted before Retry-After').toBe(429);
  }
  await sleep(refusedAt + retryAfter * 1000 + 100 - Date.now());
  expect((await post(second.base, key, { source_url: `${src.url}?n=on-time` })).status, 'refused after Retry-After').toBe(202);
});

/** A TCP proxy to Temporal that the test can freeze: every byte stops in both directions. */
async function freezableProxy(target: string): Promise<{ address: string; freeze(): void; close(): Promise<void> }> {
  const [host, port] = target.split(':') as [string, string];
  const sockets = new Set<Socket>();
  let frozen = false;
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(Number(port), host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
    }
    client.on('data', (b) => void (frozen || upstream.write(b)));
    upstream.on('data', (b) => void (frozen || client.write(b)));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as { port: number }).port}`,
    freeze: () => (frozen = true),
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

it('an API killed between recording a task and starting its run leaves no stuck task', async () => {
  const { api_key: key, project_id } = await env.createProject();
  const src = await source({ total: 250 });
  const proxy = await freezableProxy(env.config.TEMPORAL_ADDRESS!);
  const doomed = await startApiProcess(env, { TEMPORAL_ADDRESS: proxy.address });
  try {
    proxy.freeze();
    const pending = post(doomed.base, key, { source_url: src.url }).catch(() => undefined);
    let row;
    for (const deadline = Date.now() + 10_000; !row && Date.now() < deadline; await sleep(20)) {
      [row] = await env.core.database.db.select().from(tasks).where(eq(tasks.projectId, project_id));
    }
    expect(row, 'the API recorded the task').toBeDefined();
    await doomed.stop();
    await pending;
    expect(await doomed.exited).toBeNull();
    const done = await env.waitForTask(row!.id, key, undefined, 45_000);
    expect(done).toMatchObject({ status: 'succeeded', runs: 1, files: [{ rows: 250 }] });
  } finally {
    await doomed.stop();
    await proxy.close();
  }
}, 90_000);

it('the sweep leaves a run this process still owes to its starter, and starts one nobody owes', async () => {
  const { project_id, api_key } = await env.createProject();
  const src = await source({ total: 10 });
  // Two tasks admitted 30 s ago whose runs never started (a burst's backlog, or a crashed API).
  const admittedAt = new Date(Date.now() - 30_000);
  const row = (n: number) => ({
    id: newId('tsk'),
    projectId: project_id,
    operatorId: 'op-r',
    type: 'csv' as const,
    fileName: `owed-${n}`,
    sourceUrl: `${src.url}?n=${n}`,
    pageSize: 100,
    priority: 3,
    options: {},
    requestHash: `owed-${n}-${Date.now()}`,
    status: 'queued' as const,
    admittedAt,
  });
  const [owed, orphan] = [row(1), row(2)];
  await env.core.database.db.insert(tasks).values([owed, orphan]);
  const deps = { db: env.core.database.db, temporal: env.temporal, config: env.config };
  const exists = (id: string) =>
    env.temporal.workflow
      .getHandle(id)
      .describe()
      .then(
        () => true,
        (err) => (err instanceof WorkflowNotFoundError ? false : Promise.reject(err)),
      );
  oweStart(owed.id);
  try {
    expect(await sweepProject(deps, project_id)).toEqual({ started: 1 });
    expect(await exists(orphan.id)).toBe(true);
    expect(await exists(owed.id), 'the sweep started a run its starter still owed').toBe(false);
  } finally {
    startPaid(owed.id);
  }
  // Once the starter has let it go (started, or handed back), a stale one is the sweep's again.
  // (The orphan's run first leaves the queue, or the sweep would count it again: it is idempotent.)
  const statusOf = async (id: string) => (await env.core.database.db.select({ status: tasks.status }).from(tasks).where(eq(tasks.id, id)))[0]?.status;
  while ((await statusOf(orphan.id)) === 'queued') await sleep(20);
  expect(await sweepProject(deps, project_id)).toEqual({ started: 1 });
  expect(await exists(owed.id)).toBe(true);
  for (const id of [owed.id, orphan.id]) expect(await env.waitForTask(id, api_key)).toMatchObject({ status: 'succeeded', files: [{ rows: 10 }] });
});
