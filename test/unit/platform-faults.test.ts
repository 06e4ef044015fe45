// How the service reads the platform failing under it (docs/adr/0036-database-restarts.md): a
// database that cannot be reached is a 503 database_unavailable and a retryable activity failure,
// a full disk a storage_failed that is not retried, a wrong query or another service's refused
// connection neither. The errors are real: a refused connection, a failing query, a full write.
import { connect } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toActivityFailure } from '../../activities/failure.js';
import { onError } from '../../api/errors.js';
import { readyApp } from '../../api/routes/health.js';
import { type Database, openDatabase } from '../../db/client.js';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { createDatabase, dropDatabase } from '../support/env.js';
import { freePort } from '../support/ports.js';

let down: Database;
let up: Database;
let url: string;

const errorOf = (p: Promise<unknown>) => p.then(() => expect.unreachable('it succeeded'), (err: unknown) => err);

beforeAll(async () => {
  // Nothing listens on this port: every query is refused.
  down = await openDatabase({ url: `postgres://postgres@127.0.0.1:${await freePort()}/none`, dataDir: '/nonexistent' });
  url = await createDatabase();
  up = await openDatabase({ url, dataDir: '/nonexistent' });
});
afterAll(async () => {
  await down?.close();
  await up?.close();
  if (url) await dropDatabase(url);
});

describe('a database that cannot be reached', () => {
  it('is told from a wrong query and from another service refusing a connection', async () => {
    expect(isDatabaseUnavailable(await errorOf(down.db.execute(sql`select 1`)))).toBe(true);
    expect(isDatabaseUnavailable(await errorOf(up.db.execute(sql`select 1/0`)))).toBe(false);
    const port = await freePort();
    const refused = await new Promise<Error>((resolve) => connect(port, '127.0.0.1').once('error', resolve));
    expect((refused as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    expect(isDatabaseUnavailable(refused)).toBe(false);
  });

  it('is told when a transaction cannot begin (drizzle does not wrap that error)', async () => {
    const err = await errorOf(down.db.transaction(async (tx) => tx.execute(sql`select 1`)));
    expect(isDatabaseUnavailable(err)).toBe(true);
    // What the transaction's own code throws (here another service's refusal) passes unchanged.
    const port = await freePort();
    const refused = await new Promise<Error>((resolve) => connect(port, '127.0.0.1').once('error', resolve));
    expect(await errorOf(up.db.transaction(async () => Promise.reject(refused)))).toBe(refused);
  });

  it('is a 503 database_unavailable with Retry-After, never a 500', async () => {
    const app = new Hono();
    app.get('/x', async (c) => c.json(await down.db.execute(sql`select 1`)));
    app.onError(onError);
    const res = await app.request('/x');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('database_unavailable');
    // The driver's message (with the database's address) stays out of the answer.
    expect(body.error.message).not.toContain('127.0.0.1');
  });

  it('leaves /readyz 200: every replica would leave the load balancer at once, and clients lose the 503', async () => {
    const app = new Hono();
    app.route('/readyz', readyApp());
    app.get('/x', async (c) => c.json(await down.db.execute(sql`select 1`)));
    app.onError(onError);
    expect(await (await app.request('/readyz')).json()).toEqual({ status: 'ready' });
    expect((await app.request('/x')).status).toBe(503);
  });

  it('fails an activity retryably, saying so', async () => {
    const failure = toActivityFailure(await errorOf(down.db.execute(sql`select 1`))) as ApplicationFailure;
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe('internal_error');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(/^database unavailable: /);
    expect(failure.nextRetryDelay).toBe(5000);
  });
});

describe('a full disk', () => {
  it('fails an activity with storage_failed, not retried', async () => {
    const { writeFile } = await import('node:fs/promises');
    // /dev/full answers every write with ENOSPC.
    const err = await errorOf(writeFile('/dev/full', 'x'));
    expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
    const failure = toActivityFailure(err) as ApplicationFailure;
    expect(failure.type).toBe('storage_failed');
    expect(failure.nonRetryable).toBe(true);
  });
});
