// Delivery into the customer's bucket, end to end: a SeaweedFS of the customer's with its own
// users, the real service and worker. The probe names what fails; a split export lands whole with
// its manifest last; a wrong secret fails the task at once and leaves its files downloadable here;
// an endpoint whose host the admin removed is refused at delivery.
import { Readable } from 'node:stream';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createDeliverActivities } from '../../activities/deliver.js';
import { destinations, tasks } from '../../db/schema.js';
import { openBucket } from '../../domain/destinations/connect.js';
import { type DeliveryCheckpoint, type DeliveryDeps, deliverTask } from '../../domain/destinations/deliver.js';
import { probeDestination } from '../../domain/destinations/probe.js';
import { resealDestinations } from '../../domain/destinations/store.js';
import { getProject } from '../../domain/projects/projects.js';
import { classify } from '../../domain/destinations/failures.js';
import { newId, randomToken } from '../../platform/crypto.js';
import { metrics } from '../../platform/metrics.js';
import { seal } from '../../platform/sealed.js';
import type { Storage } from '../../platform/storage/index.js';
import { BUCKET, type CustomerBucket, MISSING, PUTTER, READER, sha256, startCustomerBucket, WRITER } from '../support/customer-bucket.js';
import { ADMIN, startTestEnv, type TestEnv } from '../support/env.js';
import { runActivity } from '../support/activity-env.js';
import { freePort } from '../support/ports.js';
import { type SourceServer, startSource } from '../support/source-server.js';

let env: TestEnv;
let customer: CustomerBucket;
let src: SourceServer;
let project: { project_id: string; api_key: string };

beforeAll(async () => {
  [env, customer] = await Promise.all([startTestEnv(), startCustomerBucket()]);
  src = await startSource({ total: 9_000 });
  project = await env.createProject({ destination_hosts: ['127.0.0.1', '*.invalid'] });
});
afterAll(async () => {
  await src?.close();
  await env?.close();
  await customer?.stop();
});

const destination = async (extra: Record<string, unknown> = {}) => {
  const body = { name: 'warehouse', kind: 's3', endpoint: customer.s3.endpoint, region: 'us-east-1', bucket: BUCKET, prefix: 'exports/', access_key_id: WRITER.accessKey, secret_access_key: WRITER.secretKey, path_style: true, ...extra };
  const res = await env.api('POST', '/v1/destinations', { token: project.api_key, body });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.destination_id as string;
};
const probe = async (id: string) => (await env.api('POST', `/v1/destinations/${id}/test`, { token: project.api_key })).json;
const submit = async (body: Record<string, unknown>) => {
  const res = await env.api('POST', '/v1/tasks', { token: project.api_key, body: { source_url: src.url, operator_id: 'op', page_size: 1000, ...body } });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json.task_id as string;
};

describe('POST /v1/destinations/:id/test', () => {
  it('writes and removes a probe object, and starts and aborts a multipart upload, with the right user', async () => {
    const result = await probe(await destination());
    expect(result).toMatchObject({ ok: true });
    expect((await customer.objects('exports/')).size).toBe(0);
    expect(await customer.incomplete('exports/')).toEqual([]);
  });

  it('names the failure: auth, bucket, permission, connect, tls, dns', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ secret_access_key: 'not-the-secret' }, 'auth', 'write'],
      [{ access_key_id: 'nobody-at-all' }, 'auth', 'write'],
      [{ bucket: MISSING.bucket, access_key_id: MISSING.accessKey, secret_access_key: MISSING.secretKey }, 'bucket', 'write'],
      [{ access_key_id: READER.accessKey, secret_access_key: READER.secretKey }, 'permission', 'write'],
      // Writes and deletes, but may not list the multipart uploads a big file's delivery starts by asking for.
      [{ access_key_id: PUTTER.accessKey, secret_access_key: PUTTER.secretKey }, 'permission', 'multipart'],
      [{ endpoint: `http://127.0.0.1:${await freePort()}` }, 'connect', 'write'],
      [{ endpoint: customer.s3.endpoint.replace('http:', 'https:') }, 'tls', 'write'],
      [{ endpoint: 'http://bucket.nowhere.invalid' }, 'dns', 'write'],
      // Virtual-hosted: minio connects to `customer-bucket.127.0.0.1`, which the project does not allow.
      [{ path_style: false }, 'host_not_allowed', 'write'],
    ];
    for (const [extra, code, step] of cases) {
      const result = await probe(await destination(extra));
      expect(result, JSON.stringify(extra)).toMatchObject({ ok: false, step, error: { code } });
      expect(result.error.message).not.toContain(WRITER.secretKey);
    }
  });

  it('refuses at connect time a name that resolves to a metadata address (the guarded agent)', async () => {
    const keys = ['a-test-key-for-sealing-0123456789abcdef'];
    const SEALED = seal('secret', keys, 'dst_x');
    const bucket = openBucket({ id: 'dst_x', projectId: 'p', name: 'n', kind: 's3', endpoint: 'http://metadata.google.internal', region: 'us-east-1', bucket: BUCKET, prefix: '', accessKeyId: 'a', secretSealed: SEALED, pathStyle: true, sftp: null, createdAt: new Date() }, keys, ['metadata.google.internal']);
    const err = await bucket.client.putObject(BUCKET, 'x', Buffer.from('x')).catch((e: unknown) => e);
    bucket.close();
    expect((err as { code?: string }).code).toBe('EBLOCKED');
    expect(classify(err)).toBe('blocked');
  }, 30_000);
});

describe('delivery', () => {
  it('delivers every part of a split export, then a manifest whose sha256s match the bytes', async () => {
    const id = await destination();
    const taskId = await submit({ file_name: 'orders', max_file_rows: 4000, destination_id: id, destination_path: 'daily/{{date}}/{{task_id}}-{{file_name}}' });
    const task = await env.waitForTask(taskId, project.api_key, undefined, 120_000);
    expect(task.status, JSON.stringify(task.error)).toBe('succeeded');
    expect(task).toMatchObject({ destination_id: id, destination_path: 'daily/{{date}}/{{task_id}}-{{file_name}}' });
    const dir = `exports/daily/${task.created_at.slice(0, 10)}/`;
    expect(task.files.map((f: { name: string }) => f.name)).toEqual(['orders-part-1.csv', 'orders-part-2.csv', 'orders-part-3.csv', 'orders.zip']);
    for (const f of task.files) expect(f.delivered_to).toBe(`s3://${BUCKET}/${dir}${taskId}-${f.name}`);

    const objects = await customer.objects(dir);
    expect([...objects.keys()].sort()).toEqual([...task.files.map((f: { name: string }) => `${dir}${taskId}-${f.name}`), `${dir}${taskId}-manifest.json`].sort());
    const manifest = JSON.parse(objects.get(`${dir}${taskId}-manifest.json`)!.toString());
    expect(manifest.task).toMatchObject({ task_id: taskId, project_id: project.project_id, type: 'csv', file_name: 'orders' });
    expect(manifest.files).toHaveLength(4);
    for (const f of manifest.files) {
      const bytes = objects.get(f.key)!;
      expect(f).toMatchObject({ bytes: bytes.length, sha256: sha256(bytes) });
      expect(f.created_at <= manifest.created_at).toBe(true);
    }
    expect(manifest.files.filter((f: { name: string }) => f.name.endsWith('.csv')).reduce((n: number, f: { rows: number }) => n + f.rows, 0)).toBe(9000);
    // The manifest is written last: no file's object is newer.
    const stats = await Promise.all([...objects.keys()].map(async (k) => [k, (await customer.admin.statObject(BUCKET, k)).lastModified.getTime()] as const));
    const manifestAt = stats.find(([k]) => k.endsWith('manifest.json'))![1];
    expect(stats.every(([, at]) => at <= manifestAt)).toBe(true);
    expect(await customer.incomplete('exports/')).toEqual([]);
  });

  it('fails at once on a wrong secret (destination_auth_failed); the files stay downloadable here', async () => {
    const id = await destination({ secret_access_key: 'wrong-secret-0123456789' });
    const started = Date.now();
    const task = await env.waitForTask(await submit({ file_name: 'refused', destination_id: id }), project.api_key, undefined, 120_000);
    expect(task.status).toBe('failed');
    expect(task.error.code).toBe('destination_auth_failed');
    expect(task.error.message).not.toContain('wrong-secret');
    // One attempt: the profile's first retry alone would wait 2 s, and there would be nine more.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(task.files).toHaveLength(1);
    expect(task.files[0].delivered_to).toBeUndefined();
    expect(task.expires_at).not.toBeNull();
    const file = await fetch(task.files[0].url);
    expect(file.status).toBe(200);
    expect(sha256(Buffer.from(await file.arrayBuffer()))).toBe(task.files[0].sha256);
    expect((await env.api('GET', `/v1/tasks/${task.task_id}/download`, { token: project.api_key })).status).toBe(200);
  });

  it('checks the host again at delivery: the admin removed it meanwhile (destination_host_not_allowed)', async () => {
    const other = await env.createProject({ name: 'moving', destination_hosts: ['127.0.0.1'] });
    const body = { name: 'w', kind: 's3', endpoint: customer.s3.endpoint, region: 'us-east-1', bucket: BUCKET, prefix: 'moved', access_key_id: WRITER.accessKey, secret_access_key: WRITER.secretKey, path_style: true };
    const id = (await env.api('POST', '/v1/destinations', { token: other.api_key, body })).json.destination_id;
    const slow = await startSource({ total: 3000, delayMs: (r) => (r.pageSize === 1 ? 0 : 1500) });
    try {
      const res = await env.api('POST', '/v1/tasks', { token: other.api_key, body: { source_url: slow.url, operator_id: 'op', page_size: 1000, destination_id: id } });
      expect(res.status).toBe(202);
      expect((await env.api('PATCH', `/v1/projects/${other.project_id}`, { token: ADMIN, body: { destination_hosts: ['s3.example.com'] } })).status).toBe(200);
      const task = await env.waitForTask(res.json.task_id, other.api_key, undefined, 120_000);
      expect(task.status).toBe('failed');
      expect(task.error.code).toBe('destination_host_not_allowed');
      expect((await customer.objects('moved/')).size).toBe(0);
      const again = await env.api('POST', '/v1/tasks', { token: other.api_key, body: { source_url: slow.url, operator_id: 'op2', destination_id: id } });
      expect(again.status).toBe(422);
      expect(again.json.error.code).toBe('destination_host_not_allowed');
    } finally {
      await slow.close();
    }
  });
});

describe('what a delivery blames on whom (deliverTask against the bucket, our store faked)', () => {
  const PART = 5 * 1024 * 1024;
  /** A running task that delivers one file into a new destination under prefix. */
  const newTask = async (prefix: string) => {
    const destinationId = await destination({ prefix });
    const [task] = await env.core.database.db
      .insert(tasks)
      .values({ id: newId('tsk'), projectId: project.project_id, operatorId: 'op', type: 'csv', fileName: 'f', sourceUrl: src.url, pageSize: 10, priority: 0, options: { destination_id: destinationId }, status: 'running', stage: 'delivering', requestHash: randomToken(16) })
      .returning();
    return { task: task!, destinationId };
  };
  const fileOf = (file: { bytes: number; sha256: string }) => ({ name: 'f.csv', key: 'k', rows: 1, ...file });
  const deliver = async (prefix: string, storage: Pick<Storage, 'getStream'>, file: { bytes: number; sha256: string }, extra: Partial<DeliveryDeps> = {}) => {
    const { task } = await newTask(prefix);
    const deps = { db: env.core.database.db, storage: storage as Storage, keys: env.core.secrets.destinationKeys, partBytes: PART, timeoutMs: 10_000, ...extra };
    const saved: DeliveryCheckpoint[] = [];
    const err = await deliverTask(deps, task, [fileOf(file)], { delivered: [] }, (c) => saved.push(c)).catch((e: unknown) => e);
    return { err, saved };
  };
  const bytes = Buffer.alloc(PART + 1000, 7);

  it("our store refusing (even with an S3 AccessDenied) is storage_failed and retried, not the customer's bucket", async () => {
    const refused = { getStream: () => Promise.reject(Object.assign(new Error('Access Denied.'), { code: 'AccessDenied' })) };
    expect((await deliver('blame-open/', refused, { bytes: 10, sha256: sha256(Buffer.alloc(10)) })).err).toMatchObject({ code: 'storage_failed', retryable: true });
    // The stream breaking after the first part.
    const broken = {
      getStream: async () =>
        Readable.from(
          (async function* () {
            yield bytes.subarray(0, PART);
            throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
          })(),
        ),
    };
    const { err, saved } = await deliver('blame-stream/', broken, { bytes: bytes.length, sha256: sha256(bytes) });
    expect(err).toMatchObject({ code: 'storage_failed', retryable: true });
    // Transient: the upload and its first part stay for the next attempt.
    expect((await customer.incomplete('blame-stream/')).map((u) => u.uploadId)).toEqual([saved.at(-1)!.current!.uploadId]);
    // The same on the retry policy's last attempt: none comes back for it, so it is aborted.
    expect((await deliver('blame-last/', broken, { bytes: bytes.length, sha256: sha256(bytes) }, { lastAttempt: true })).err).toMatchObject({ code: 'storage_failed' });
    expect(await customer.incomplete('blame-last/')).toEqual([]);
  });

  it('a stored file whose bytes do not match its sha256 fails for good (storage_failed, not retried)', async () => {
    const { err } = await deliver('blame-sha/', { getStream: async () => Readable.from([bytes]) }, { bytes: bytes.length, sha256: sha256(Buffer.from('other')) });
    expect(err).toMatchObject({ code: 'storage_failed', retryable: false });
    expect((err as Error).message).toMatch(/does not match its sha256/);
    // The part already sent is not left billed in the customer's bucket.
    expect(await customer.incomplete('blame-sha/')).toEqual([]);
  });

  it('a task cancelled mid-delivery: the activity ends with its cancellation, not a failed delivery', async () => {
    const { task, destinationId } = await newTask('blame-cancel/');
    const small = Buffer.from('a,b\n');
    let cancel = () => {};
    // Cancelled while the file is read: the next checkpoint notices.
    const storage = { getStream: async () => (cancel(), Readable.from([small])) } as unknown as Storage;
    const activities = createDeliverActivities({ db: env.core.database.db, storage, config: env.config, destinationKeys: env.core.secrets.destinationKeys } as never);
    const run = runActivity({}, () => activities.deliverFiles({ taskId: task.id, files: [fileOf({ bytes: small.length, sha256: sha256(small) })] }));
    cancel = () => run.env.cancel();
    const err = await run.result.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledFailure);
    const counted = (await metrics.destinationDeliveries.get()).values.filter((v) => v.labels.destination_id === destinationId);
    expect(counted).toEqual([]);
  });
});

describe('rotating DESTINATION_KEYS', () => {
  it('re-seals every secret with the new first key; the old key is then no longer needed', async () => {
    const db = env.core.database.db;
    const old = env.core.secrets.destinationKeys;
    const fresh = 'a-fresh-destination-key-0123456789abcdef';
    const id = await destination({ name: 'rotated' });
    const first = await resealDestinations(db, [fresh, ...old]);
    expect(first.resealed).toBeGreaterThan(0);
    expect(first.unreadable).toEqual([]);
    expect(await resealDestinations(db, [fresh])).toEqual({ resealed: 0, unreadable: [] });
    const [row] = await db.select().from(destinations).where(eq(destinations.id, id));
    expect(row!.secretSealed).not.toContain(WRITER.secretKey);
    expect(await probeDestination(row!, (await getProject(db, project.project_id))!, [fresh], 10_000)).toMatchObject({ ok: true });
    // A process that knows only the old key can no longer open it: it names the problem, nothing is sent.
    expect(await resealDestinations(db, old)).toMatchObject({ resealed: 0 });
    expect((await resealDestinations(db, old)).unreadable).toContain(id);
    // Back to the keys the service runs with, for whatever runs after.
    await resealDestinations(db, [...old, fresh]);
    expect(await probe(id)).toMatchObject({ ok: true });
  });
});
