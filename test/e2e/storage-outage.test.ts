// The object store unreachable for 30 s while an export renders and uploads, in split mode
// (`npm run api` + `npm run worker` processes; a SeaweedFS of the test's own, stopped and started
// on the same ports and data folder): the upload is retried, the export ends exact, the bucket holds
// one copy of the file and nothing staged, and no process exits.
import { Client } from 'minio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEveryRowOnce, type FaultCluster, startFaultCluster } from '../support/fault-cluster.js';
import { createDatabase, dropDatabase } from '../support/env.js';
import { type S3Server, startS3Server } from '../support/s3-server.js';
import { type SourceServer, startSource } from '../support/source-server.js';

const TOTAL = 200_000;
const BUCKET = 'dc-outage';
const OUTAGE_MS = 30_000;

let s3: S3Server;
let databaseUrl: string;
let cluster: FaultCluster;
let src: SourceServer;

beforeAll(async () => {
  [s3, databaseUrl] = await Promise.all([startS3Server(), createDatabase()]);
  const store = { S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY: s3.accessKey, S3_SECRET_KEY: s3.secretKey, S3_BUCKET: BUCKET };
  cluster = await startFaultCluster({ databaseUrl, env: store });
  src = await startSource({ total: TOTAL });
}, 180_000);
afterAll(async () => {
  await cluster?.close();
  await src?.close();
  await s3?.stop();
  if (databaseUrl) await dropDatabase(databaseUrl);
});

const during0 = (a: { json: { status: string } }) => a.json.status;

async function objects(): Promise<string[]> {
  const client = new Client({ endPoint: '127.0.0.1', port: Number(new URL(s3.endpoint).port), useSSL: false, accessKey: s3.accessKey, secretKey: s3.secretKey, region: 'us-east-1' });
  const names: string[] = [];
  for await (const o of client.listObjectsV2(BUCKET, '', true)) if (o.name) names.push(o.name);
  return names;
}

describe('S3 unreachable for 30 s while the file is rendered and uploaded', () => {
  it('retries the upload; the export ends exact with one copy of its file', async () => {
    const key = await cluster.createProject();
    const taskId = await cluster.submit(key, { source_url: src.url, page_size: 1000, file_name: 'outage' });
    // Every page is staged in the bucket; the outage starts as the file is being rendered from them.
    for (;;) {
      const t = await cluster.call('GET', `/v1/tasks/${taskId}`, { token: key });
      if (['rendering', 'uploading'].includes(t.json.stage) || ['succeeded', 'failed', 'cancelled'].includes(t.json.status)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(during0(await cluster.call('GET', `/v1/tasks/${taskId}`, { token: key }))).toBe('running');
    await s3.pause();
    const downAt = Date.now();
    // The API keeps answering meanwhile: the task is running, /healthz names the store.
    const during = await cluster.call('GET', `/v1/tasks/${taskId}`, { token: key });
    expect(during.status).toBe(200);
    expect(during.json.status).toBe('running');
    const health = await cluster.call('GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.json.checks.storage).not.toBe('ok');
    await new Promise((r) => setTimeout(r, OUTAGE_MS - (Date.now() - downAt)));
    expect(cluster.exits()).toEqual([]);
    await s3.resume();
    const backAt = Date.now();

    const ended = await cluster.waitForEnd(taskId, key, 180_000);
    console.log(`store back: export finished ${Date.now() - backAt} ms after its return`);
    await expectEveryRowOnce(ended, TOTAL);
    // One copy: the published file, nothing left staged.
    expect(await objects()).toEqual([ended.files[0].key ?? expect.stringMatching(new RegExp(`^files/${taskId}/`))]);
    expect(cluster.exits()).toEqual([]);
  }, 300_000);
});
