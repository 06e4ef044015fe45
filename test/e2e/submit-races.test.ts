// Submissions under pressure: identical requests racing through two API processes, the submit
// rate across processes with a true Retry-After, an API killed between recording a task and
// starting its run, and two processes sweeping the same starts (docs/adr/0022-admission-one-owner.md).
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { eq } from 'drizzle-orm';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../db/client.js';
import { tasks } from '../../db/schema.js';
import { Admission } from '../../domain/tasks/admission/index.js';
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

/** A Temporal client that notes every run it starts, as a process of its own would. */
function countingClient(client: Client, started: string[]): Client {
  const workflow = new Proxy(client.workflow, {
    get(target, key) {
      if (key === 'start') return (fn: unknown, options: { workflowId: string }) => (started.push(options.workflowId), target.start(fn as never, options as never));
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return new Proxy(client, { get: (target, key) => (key === 'workflow' ? workflow : Reflect.get(target, key)) });
}

it('a start claimed by a live starter is left to it; a lapsed one is started once, by one of two processes', async () => {
  const { project_id, api_key } = await env.createProject();
  const src = await source({ total: 10 });
  // Two tasks admitted 30 s ago whose runs have not started: one whose starter still renews its
  // claim (a burst's backlog), one whose claim lapsed (its API died).
  const admittedAt = new Date(Date.now() - 30_000);
  const row = (n: number, startClaimedUntil: Date) => ({
    id: newId('tsk'),
    projectId: project_id,
    operatorId: 'op-r',
    type: 'csv' as const,
    fileName: `claimed-${n}`,
    sourceUrl: `${src.url}?n=${n}`,
    pageSize: 100,
    priority: 3,
    options: {},
    requestHash: `claimed-${n}-${Date.now()}`,
    status: 'queued' as const,
    admittedAt,
    startClaimedUntil,
  });
  const [held, lapsed] = [row(1, new Date(Date.now() + 60_000)), row(2, new Date(Date.now() - 1000))];
  const { db } = env.core.database;
  await db.insert(tasks).values([held, lapsed]);
  // Two processes: each its own database pool and Temporal client, sweeping at the same moment.
  const other = await openDatabase({ url: env.databaseUrl, dataDir: '' });
  const started: string[] = [];
  const deps = [db, other.db].map((d) => ({ db: d, temporal: countingClient(env.temporal, started), config: env.config }));
  try {
    const answers = await Promise.all(deps.map((d) => new Admission(d).sweepProject(project_id)));
    expect(answers.map((a) => a.started).sort()).toEqual([0, 1]);
    expect(started, 'the lapsed start was made once, the held one not at all').toEqual([lapsed.id]);
    // Once the holder's claim lapses too (it died), the next sweep starts that run.
    await db.update(tasks).set({ startClaimedUntil: new Date(Date.now() - 1) }).where(eq(tasks.id, held.id));
    expect((await new Admission(deps[1]!).sweepProject(project_id)).started).toBe(1);
    expect(started).toEqual([lapsed.id, held.id]);
  } finally {
    await other.close();
  }
  for (const id of [held.id, lapsed.id]) expect(await env.waitForTask(id, api_key)).toMatchObject({ status: 'succeeded', files: [{ rows: 10 }] });
});
