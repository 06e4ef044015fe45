// An API process's sync Worker (app/sync-worker.ts) polls from the first sync export on: `npm start`
// idle holds none (docs/adr/0055-idle-memory-of-npm-start.md). The first sync export starts it and
// still starts eagerly on it; a sync run already waiting on the queue (its API process ended
// mid-run) wakes it too, found at start.
import { Client, Connection } from '@temporalio/client';
import { afterAll, expect, it } from 'vitest';
import { startDevServer, type DevServer } from '../../platform/temporal-server.js';
import { cleanUpEmbedded, type Embedded, startEmbedded } from '../support/embedded.js';
import { freePort } from '../support/ports.js';
import { type SourceServer, startSource } from '../support/source-server.js';

const TASK_QUEUE_TYPE_WORKFLOW = 1;
let svc: Embedded | undefined;
let src: SourceServer | undefined;
let outside: DevServer | undefined;
const connections: Connection[] = [];

afterAll(async () => {
  await cleanUpEmbedded(svc, src);
  await Promise.all(connections.map((c) => c.close()));
  await outside?.stop();
});

async function temporalAt(address: string): Promise<Client> {
  const connection = await Connection.connect({ address });
  connections.push(connection);
  return new Client({ connection });
}

/** The identities polling a queue's workflow tasks, as the server saw them lately. */
async function pollers(client: Client, name: string): Promise<string[]> {
  const answer = await client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name }, taskQueueType: TASK_QUEUE_TYPE_WORKFLOW });
  return (answer.pollers ?? []).map((p) => p.identity ?? '');
}

it('npm start polls the sync queue from its first sync export on, which still starts eagerly', { timeout: 120_000 }, async () => {
  src = await startSource({ total: 250 });
  const temporalPort = await freePort();
  svc = await startEmbedded({ ports: { port: await freePort(), temporal: temporalPort, ui: await freePort() }, env: { DEMO_SOURCE: 'off' } });
  const temporal = await temporalAt(`127.0.0.1:${temporalPort}`);
  // The worker process polls its queue; nobody polls the sync queue yet.
  await expect.poll(() => pollers(temporal, 'download-center'), { timeout: 30_000 }).not.toEqual([]);
  expect(await pollers(temporal, 'download-center-sync')).toEqual([]);

  const key = (await svc.call('POST', '/v1/projects', svc.adminToken(), { name: 'wake', source_hosts: [src.host] })).json.api_key as string;
  const sync = () =>
    fetch(`${svc!.base}/v1/tasks/sync`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source_url: src!.url, operator_id: 'op', page_size: 100 }),
    });
  for (let i = 0; i < 2; i++) {
    const res = await sync();
    expect(res.status, await res.clone().text()).toBe(200);
    // The first waited for the Worker to start (its own step), then started eagerly on it.
    expect(res.headers.get('server-timing')).toMatch(/worker;dur=[0-9.]+, .*start;dur=[0-9.]+;desc="eager"/);
    expect((await res.text()).split('\r\n').filter(Boolean)).toHaveLength(251);
  }
  expect(await pollers(temporal, 'download-center-sync')).toHaveLength(1);
});

it('an API process whose sync queue holds a waiting run starts its sync Worker at start', { timeout: 120_000 }, async () => {
  await cleanUpEmbedded(svc);
  svc = undefined;
  outside = await startDevServer({ port: await freePort() });
  const temporal = await temporalAt(outside.address);
  const queue = `wake-${Date.now()}`;
  // A run left on the sync queue: a workflow task nobody has taken (what an API process that ended
  // mid-run leaves behind, whatever the run).
  await temporal.workflow.start('leftBehind', { taskQueue: `${queue}-sync`, workflowId: `left-${queue}`, args: [] });
  svc = await startEmbedded({ env: { DEMO_SOURCE: 'off', TEMPORAL_ADDRESS: outside.address, TEMPORAL_TASK_QUEUE: queue } });
  await expect.poll(() => pollers(temporal, `${queue}-sync`), { timeout: 30_000 }).toHaveLength(1);
  await temporal.workflow.getHandle(`left-${queue}`).terminate('the test is over');
});
