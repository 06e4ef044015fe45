// Presigned GETs (platform/storage/presign.ts) against minio's own presigner, the direct link's
// lifetime rules (platform/links.ts) and the configuration that turns them on.
import { Client } from 'minio';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { contentDisposition } from '../../platform/http.js';
import { directLink, directLinks } from '../../platform/links.js';
import { PRESIGN_MAX_SECONDS, presignGet, uriEncode } from '../../platform/storage/presign.js';

const now = new Date('2026-11-23T07:30:12.345Z');
const params = (u: string) => Object.fromEntries(new URL(u).searchParams);

describe('presignGet', () => {
  for (const endpoint of ['http://127.0.0.1:8333', 'https://s3.example.com', 'http://minio:9000']) {
    it(`signs exactly as minio does (${endpoint})`, async () => {
      const url = new URL(endpoint);
      const ssl = url.protocol === 'https:';
      const minio = new Client({ endPoint: url.hostname, port: url.port ? Number(url.port) : ssl ? 443 : 80, useSSL: ssl, accessKey: 'AKID', secretKey: 'secret/key+1', region: 'eu-west-1', pathStyle: true });
      const key = "files/tsk_1/订单 (11)!*'.csv";
      const response = { 'response-content-disposition': contentDisposition("订单 (11)!*'.csv"), 'response-content-type': 'text/csv; charset=utf-8' };
      const theirs = await minio.presignedGetObject('dc-bucket', key, 3600, response, now);
      const ours = presignGet({ endpoint, region: 'eu-west-1', accessKey: 'AKID', secretKey: 'secret/key+1', bucket: 'dc-bucket', key, expiresSeconds: 3600, now, params: response });
      // the same object, the same parameters and the same signature (minio orders the query differently)
      expect(new URL(ours).pathname).toBe(new URL(theirs).pathname);
      expect(params(ours)).toEqual(params(theirs));
      expect(params(ours)['X-Amz-Signature']).toMatch(/^[0-9a-f]{64}$/);
      expect(params(ours)).toMatchObject({ 'X-Amz-Date': '20261123T073012Z', 'X-Amz-Expires': '3600', 'X-Amz-Credential': 'AKID/20261123/eu-west-1/s3/aws4_request' });
    });
  }

  it('encodes as SigV4 wants, and refuses lifetimes S3 would refuse', () => {
    expect(uriEncode("a b!*'()~._-/")).toBe('a%20b%21%2A%27%28%29~._-%2F');
    const base = { endpoint: 'http://s3:9000', region: 'us-east-1', accessKey: 'a', secretKey: 'b', bucket: 'x', key: 'k', now };
    expect(() => presignGet({ ...base, expiresSeconds: 0 })).toThrow(RangeError);
    expect(() => presignGet({ ...base, expiresSeconds: PRESIGN_MAX_SECONDS + 1 })).toThrow(RangeError);
    expect(presignGet({ ...base, expiresSeconds: PRESIGN_MAX_SECONDS })).toContain('X-Amz-Expires=604800');
  });
});

describe('direct links', () => {
  const s3 = { S3_ENDPOINT: 'http://minio:9000', S3_ACCESS_KEY: 'ak', S3_SECRET_KEY: 'sk', S3_BUCKET: 'dc' };
  const file = { key: 'files/tsk_1/orders.csv', name: 'orders.csv' };

  it('are on with S3 storage, naming S3_PUBLIC_ENDPOINT, or the CDN with the same path and query', () => {
    expect(directLinks(loadConfig({}))).toBeNull();
    expect(directLinks(loadConfig({ ...s3, DIRECT_DOWNLOADS: 'off' }))).toBeNull();
    const plain = directLink(directLinks(loadConfig(s3))!, file, new Date(now.getTime() + 3600_000), now)!;
    expect(plain.url).toMatch(/^http:\/\/minio:9000\/dc\/files\/tsk_1\/orders\.csv\?/);
    const pub = directLink(directLinks(loadConfig({ ...s3, S3_PUBLIC_ENDPOINT: 'https://files.example.com' }))!, file, new Date(now.getTime() + 3600_000), now)!;
    expect(pub.url).toMatch(/^https:\/\/files\.example\.com\/dc\/files\/tsk_1\/orders\.csv\?/);
    const cdn = directLink(directLinks(loadConfig({ ...s3, S3_PUBLIC_ENDPOINT: 'https://files.example.com', PUBLIC_DOWNLOAD_BASE: 'https://cdn.example.com/dl/' }))!, file, new Date(now.getTime() + 3600_000), now)!;
    expect(cdn.url).toBe(`https://cdn.example.com/dl${pub.url.slice('https://files.example.com'.length)}`);
    expect(params(plain.url)).toMatchObject({
      'response-content-disposition': `attachment; filename="orders.csv"; filename*=UTF-8''orders.csv`,
      'response-content-type': 'text/csv; charset=utf-8',
      'response-cache-control': 'private, max-age=3600',
    });
  });

  it('live until the expiry asked for, at most 7 days, and none with less than a second left', () => {
    const d = directLinks(loadConfig(s3))!;
    const in30days = new Date(now.getTime() + 30 * 86400_000);
    const capped = directLink(d, file, in30days, now)!;
    expect(params(capped.url)['X-Amz-Expires']).toBe(String(7 * 86400));
    expect(capped.expiresAt.toISOString()).toBe('2026-11-30T07:30:12.000Z');
    const soon = directLink(d, file, new Date(now.getTime() + 90_500), now)!;
    expect(params(soon.url)['X-Amz-Expires']).toBe('90');
    expect(soon.expiresAt.getTime()).toBeLessThanOrEqual(now.getTime() + 90_500);
    expect(directLink(d, file, new Date(now.getTime() + 999), now)).toBeNull();
  });

  it('are configured with checked variables', () => {
    expect(() => loadConfig({ PUBLIC_DOWNLOAD_BASE: 'https://cdn.example.com' })).toThrow(/need S3 storage/);
    expect(() => loadConfig({ ...s3, S3_PUBLIC_ENDPOINT: 'https://files.example.com/bucket' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...s3, S3_PUBLIC_ENDPOINT: 'https://files.example.com/bucket' })).toThrow(/S3_PUBLIC_ENDPOINT: must be scheme/);
    expect(() => loadConfig({ ...s3, DIRECT_DOWNLOADS: 'yes' })).toThrow(/DIRECT_DOWNLOADS/);
    expect(() => loadConfig({ HEALTH_PORT: '0' })).toThrow(/HEALTH_PORT/);
  });
});
