// Direct downloads (docs/adr/0015-direct-downloads.md): with the S3 store, files[].url is a
// presigned GET that the bucket itself (SeaweedFS here) answers with the file's name and type, or
// the same path and query through a CDN; the API's signed links stay for local storage, with
// DIRECT_DOWNLOADS=off, and for links handed out before.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTask } from '../../domain/tasks/queries.js';
import { linkSigner, taskJson } from '../../domain/tasks/view.js';
import { loadConfig } from '../../platform/config.js';
import { directLink, directLinks, signLink } from '../../platform/links.js';
import { type Cdn, startCdn } from '../support/cdn.js';
import { ADMIN, s3Env, startTestEnv, type TestEnv } from '../support/env.js';
import { type SourceServer, startSource } from '../support/source-server.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const download = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
};

describe('with the S3 store', () => {
  let env: TestEnv;
  let key: string;
  let src: SourceServer;
  let cdn: Cdn;
  let task: any;

  beforeAll(async () => {
    // Links would live 30 days; S3 caps a presigned URL at 7, the task's retention (48 h) caps it sooner.
    env = await startTestEnv({ ...s3Env(), LINK_TTL_SECONDS: String(30 * 86400) });
    ({ api_key: key } = await env.createProject({ retention_hours: 48 }));
    src = await startSource({ total: 1234 });
    cdn = await startCdn(env.config.s3!.endpoint);
    const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', page_size: 100, file_name: '订单 2026-11' } });
    task = await env.waitForTask(res.json.task_id, key);
    expect(task.status).toBe('succeeded');
  });
  afterAll(async () => {
    await cdn?.close();
    await src?.close();
    await env?.close();
  });

  it('files[].url is a presigned GET of the bucket: the store answers with the bytes, name and type', async () => {
    const [file] = task.files;
    const url = new URL(file.url);
    expect(url.origin).toBe(env.config.s3!.endpoint);
    // Stored by part number; the name travels in the answer's Content-Disposition.
    expect(url.pathname).toBe(`/${env.config.s3!.bucket}/files/${task.task_id}/1.csv`);
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const res = await download(file.url);
    expect(res.status).toBe(200);
    expect(sha256(res.body)).toBe(file.sha256);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="__ 2026-11.csv"; filename*=UTF-8''${encodeURIComponent('订单 2026-11.csv')}`);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.body.toString('utf8').trimEnd().split('\r\n')).toHaveLength(1 + 1234);
  });

  it('lives no longer than 7 days and never past the task expiry', async () => {
    const [file] = task.files;
    const expires = Number(new URL(file.url).searchParams.get('X-Amz-Expires'));
    expect(expires).toBeGreaterThan(47 * 3600);
    expect(expires).toBeLessThanOrEqual(48 * 3600);
    expect(Date.parse(file.expires_at)).toBeLessThanOrEqual(Date.parse(task.expires_at));
  });

  it('a tampered or expired presigned URL is refused by the store', async () => {
    const bad = new URL(task.files[0].url);
    bad.searchParams.set('response-content-disposition', 'attachment; filename="other.csv"');
    expect((await download(bad.toString())).status).toBe(403);
    const row = (await getTask(env.core.database.db, task.task_id))!;
    const short = directLink(directLinks(env.config)!, row.files[0]!, new Date(Date.now() + 1500))!;
    expect((await download(short.url)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    expect((await download(short.url)).status).toBe(403);
  });

  it('with PUBLIC_DOWNLOAD_BASE the link is on the CDN, which forwards path and query to the bucket', async () => {
    const row = (await getTask(env.core.database.db, task.task_id))!;
    const config = loadConfig({ ...s3Env(), S3_BUCKET: env.config.s3!.bucket, PUBLIC_DOWNLOAD_BASE: cdn.base });
    const json = taskJson(row, linkSigner(config, 'unused-link-secret-0123456789'));
    expect(json.files[0]!.url.startsWith(`${cdn.base}/${env.config.s3!.bucket}/files/${task.task_id}/`)).toBe(true);
    const res = await download(json.files[0]!.url);
    expect(res.status).toBe(200);
    expect(sha256(res.body)).toBe(task.files[0].sha256);
    expect(cdn.forwarded).toHaveLength(1);
  });

  it('the API still serves the file: its signed links (DIRECT_DOWNLOADS=off, links handed out before) and /download', async () => {
    const row = (await getTask(env.core.database.db, task.task_id))!;
    const off = taskJson(row, linkSigner({ ...env.config, directDownloads: loadConfig({ ...s3Env(), DIRECT_DOWNLOADS: 'off' }).directDownloads }, env.core.secrets.linkSecret));
    expect(off.files[0]!.url.startsWith(`${env.config.publicBaseUrl}/v1/files/${task.task_id}/`)).toBe(true);
    const old = signLink({ baseUrl: env.base, secret: env.core.secrets.linkSecret, taskId: task.task_id, name: task.files[0].name, expiresAt: new Date(Date.now() + 60_000) });
    for (const url of [old.url, `${env.base}/v1/tasks/${task.task_id}/download`]) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(task.files[0].sha256);
    }
  });
  it("goes past the API's record of downloads, unless the project sets downloads_through_api", async () => {
    const recorded = async () => (await env.api('GET', `/v1/tasks/${task.task_id}/downloads?limit=100`, { token: key })).json.items as Array<{ via: string; by: { kind: string } }>;
    const settled = async (n: number) => {
      for (let i = 0; i < 100 && (await recorded()).length < n; i++) await new Promise((r) => setTimeout(r, 50));
      return recorded();
    };
    const before = (await settled(2)).length;
    expect((await download(task.files[0].url)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    // The bucket answered it: the API never saw it, so there is nothing to record (docs/downloads.md).
    expect(await recorded()).toHaveLength(before);
    const set = await env.api('PATCH', `/v1/projects/${task.project_id}`, { token: ADMIN, body: { downloads_through_api: true } });
    expect(set.json.downloads_through_api).toBe(true);
    const url = (await env.api('GET', `/v1/tasks/${task.task_id}`, { token: key })).json.files[0].url as string;
    expect(url.startsWith(`${env.config.publicBaseUrl}/v1/files/${task.task_id}/`)).toBe(true);
    const res = await download(url);
    expect(sha256(res.body)).toBe(task.files[0].sha256);
    const [last] = await settled(before + 1);
    expect(last).toMatchObject({ via: 'link', by: { kind: 'link' }, complete: true });
    // A range of it, read as a range of the bucket's object.
    const part = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(res.body.subarray(10, 20));
    expect((await settled(before + 2))[0]).toMatchObject({ range: `bytes 10-19/${res.body.length}`, bytes: 10, complete: false });
    await env.api('PATCH', `/v1/projects/${task.project_id}`, { token: ADMIN, body: { downloads_through_api: false } });
    expect(new URL((await env.api('GET', `/v1/tasks/${task.task_id}`, { token: key })).json.files[0].url).origin).toBe(env.config.s3!.endpoint);
  });
});

describe('with the local store', () => {
  let env: TestEnv;
  afterAll(async () => {
    await env?.close();
  });

  it('files[].url is the API signed link', async () => {
    env = await startTestEnv();
    const { api_key: key } = await env.createProject();
    const src = await startSource({ total: 10 });
    try {
      const res = await env.api('POST', '/v1/tasks', { token: key, body: { source_url: src.url, operator_id: 'op', page_size: 100 } });
      const task = await env.waitForTask(res.json.task_id, key);
      expect(task.files[0].url.startsWith(`${env.config.publicBaseUrl}/v1/files/${task.task_id}/`)).toBe(true);
      expect((await download(task.files[0].url.replace(env.config.publicBaseUrl, env.base))).status).toBe(200);
    } finally {
      await src.close();
    }
  });
});
