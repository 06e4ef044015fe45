// A task's event reaches its listeners a slice at a time (domain/tasks/fan-out.ts), and its final
// status does not wait for a progress fan-out still under way: the listeners that progress had not
// reached yet get the final event instead, every listener gets the final event, and none gets an
// event out of order.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../db/client.js';
import { tasks } from '../../db/schema.js';
import { TaskEvents, type TaskEventName } from '../../domain/tasks/events.js';
import { fanOut, SLICE_MS } from '../../domain/tasks/fan-out.js';
import { finishTask, recordProbe } from '../../domain/tasks/status.js';
import { newId, randomToken } from '../../platform/crypto.js';
import { scratchDatabase, scratchProject } from '../support/env.js';

let scratch: { database: Database; close(): Promise<void> };

beforeAll(async () => {
  scratch = await scratchDatabase('pglite');
});

afterAll(() => scratch?.close());

/** Keeps the thread busy for `ms`, as a slow socket write would. */
const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

it('calls every item in order, lets the event loop run between slices, and stops when asked', async () => {
  const called: number[] = [];
  let turns = 0;
  const ticker = setInterval(() => turns++, 0);
  const n = await fanOut(Array.from({ length: 600 }, (_, i) => i), (i) => (called.push(i), busy(0.1)), () => false);
  clearInterval(ticker);
  expect(n).toBe(600);
  expect(called).toEqual(Array.from({ length: 600 }, (_, i) => i));
  // 60 ms of work in slices of SLICE_MS: a timer got its turn several times meanwhile.
  expect(turns).toBeGreaterThanOrEqual(Math.floor(60 / SLICE_MS / 2));

  const some: number[] = [];
  const stopped = await fanOut(Array.from({ length: 600 }, (_, i) => i), (i) => (some.push(i), busy(0.1)), () => some.length > 0);
  expect(stopped).toBe(some.length);
  expect(stopped).toBeLessThan(600);
});

it("cuts a progress fan-out short for the task's final event, which reaches every listener", async () => {
  const { db } = scratch.database;
  const project = await scratchProject(scratch.database, 'fan-out');
  const id = newId('tsk');
  await db.insert(tasks).values({ id, projectId: project.id, operatorId: 'op', type: 'csv', fileName: 'export', sourceUrl: 'http://127.0.0.1:9/x', pageSize: 10, priority: 0, options: {}, status: 'running', stage: 'probing', requestHash: randomToken(16) });
  const hub = new TaskEvents(scratch.database, 10);
  await hub.ready;
  const listeners = 300;
  const got: TaskEventName[][] = Array.from({ length: listeners }, () => []);
  let finished: Promise<unknown> | undefined;
  for (let i = 0; i < listeners; i++) {
    hub.watchProject(project.id, (_row, event) => {
      got[i]!.push(event);
      // The first listener to hear of progress ends the task: its notice arrives mid fan-out.
      if (event === 'task.progress' && !finished) finished = finishTask(db, id, { status: 'succeeded', files: [], expiresAt: new Date(Date.now() + 3_600_000) });
      busy(0.5);
    });
  }
  await recordProbe(db, id, 1000, 10);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !got.every((g) => g.includes('task.succeeded'))) await new Promise((r) => setTimeout(r, 20));
  await hub.close();

  expect(got.filter((g) => g.includes('task.succeeded'))).toHaveLength(listeners);
  // Each heard at most one progress, and it came before the final event.
  for (const g of got) expect([['task.succeeded'], ['task.progress', 'task.succeeded']]).toContainEqual(g);
  const heardProgress = got.filter((g) => g.includes('task.progress')).length;
  // 300 listeners of 0.5 ms are 150 ms of progress fan-out: the final event stopped it well before its end.
  expect(heardProgress).toBeGreaterThan(0);
  expect(heardProgress).toBeLessThan(listeners / 2);
});
